// Test helpers: a fake server behind fetch, envelopes with sensible defaults, and renderers
// that boot the real runtime and app against them.
import { act, render, type RenderResult } from "@testing-library/react";
import userEvent, { type UserEvent } from "@testing-library/user-event";
import { type Mock, vi } from "vitest";
import { App } from "../app";
import { createEngine, type Runtime } from "../runtime/runtime";
import type { ValidatorLoader } from "../runtime/validator";

/** One request the fake server saw. */
export interface Call {
  method: string;
  url: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
  /** The body as sent, for uploads (a Blob). */
  raw: unknown;
}

/** What the fake server answers: a JSON body with a status (and headers), or a network failure. */
export type Reply = { status?: number; body: unknown; headers?: Record<string, string> } | "network-error";
export type Handler = (call: Call) => Reply | Promise<Reply>;

export interface FakeServer {
  fetch: typeof fetch;
  calls: Call[];
}

export function fakeServer(handler: Handler): FakeServer {
  const calls: Call[] = [];
  const fetcher = vi.fn(async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = input instanceof Request ? input.url : String(input);
    const headers = Object.fromEntries(Object.entries((init?.headers ?? {}) as Record<string, string>));
    const body: unknown = typeof init?.body === "string" ? JSON.parse(init.body) : undefined;
    const call: Call = {
      method: init?.method ?? "GET",
      url,
      path: new URL(url, "http://test").pathname,
      headers,
      body,
      raw: init?.body,
    };
    calls.push(call);
    const reply = await handler(call);
    if (reply === "network-error") throw new TypeError("Failed to fetch");
    return new Response(JSON.stringify(reply.body), {
      status: reply.status ?? 200,
      headers: { ...reply.headers, "Content-Type": "application/json" },
    });
  });
  return { fetch: fetcher, calls };
}

export const SERVER_NOW = "2026-03-01T10:00:00Z";

export const BRAND = {
  key: "glimpse",
  name: "Glimpse",
  tagline: "Profile Analyzer",
  theme: { primary: "#3355ff", level1: "#ff0000" },
};

/** A screen envelope around `children`. */
export function envelope(
  children: unknown[],
  extra: {
    screen?: Record<string, unknown>;
    overlays?: Record<string, unknown>;
    open?: string[];
    state?: Record<string, unknown>;
    meta?: Record<string, unknown>;
  } = {},
): Record<string, unknown> {
  return {
    v: 1,
    screen: { type: "screen", id: "test", title: "Test screen", children, ...extra.screen },
    ...(extra.overlays === undefined ? {} : { overlays: extra.overlays }),
    ...(extra.open === undefined ? {} : { open: extra.open }),
    ...(extra.state === undefined ? {} : { state: extra.state }),
    meta: { serverNow: SERVER_NOW, brand: BRAND, csrf: "token-1", ...extra.meta },
  };
}

const runtimes: Runtime[] = [];

/** Stops every runtime a test made (listeners, timers); setup.ts runs it after each test. */
export function stopEngines(): void {
  for (const runtime of runtimes.splice(0)) runtime.stop();
}

/** The jsdom window with spies for what jsdom cannot do: reload, assign and open. */
export interface SpyWindow {
  window: Window;
  reload: Mock<() => void>;
  assign: Mock<(url: string) => void>;
  open: Mock<(url?: string, target?: string, features?: string) => Window | null>;
}

export function spyWindow(): SpyWindow {
  const reload = vi.fn<() => void>();
  const assign = vi.fn<(url: string) => void>();
  const open = vi.fn<(url?: string, target?: string, features?: string) => Window | null>(() => null);
  const real = window;
  const location = {
    get href() {
      return real.location.href;
    },
    get origin() {
      return real.location.origin;
    },
    get pathname() {
      return real.location.pathname;
    },
    get search() {
      return real.location.search;
    },
    get hash() {
      return real.location.hash;
    },
    reload,
    assign,
  };
  const proxy = new Proxy(real, {
    get(target, property) {
      if (property === "location") return location;
      if (property === "open") return open;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { window: proxy, reload, assign, open };
}

/** A fresh runtime on the (spied) jsdom window with the given fake server (and validator). */
export function makeEngine(server: FakeServer, on: Window = window, validator?: ValidatorLoader): Runtime {
  const runtime = createEngine({ window: on, fetch: server.fetch, ...(validator === undefined ? {} : { validator }) });
  runtimes.push(runtime);
  return runtime;
}

export interface Rendered extends RenderResult {
  runtime: Runtime;
  server: FakeServer;
  user: UserEvent;
}

/**
 * Boots the app at `url`; GET /ui/screen answers `screens[path]` (or the single envelope),
 * POSTs go to `onAction` (default: no effects).
 */
export async function renderApp(
  screens: Record<string, unknown> | (() => unknown),
  options: { url?: string; onAction?: Handler; user?: UserEvent; window?: Window } = {},
): Promise<Rendered> {
  window.history.replaceState(null, "", options.url ?? "/");
  const server = fakeServer((call) => {
    if (call.method === "POST") return options.onAction?.(call) ?? { body: {} };
    const path = new URL(call.url, "http://test").searchParams.get("path") ?? "";
    const body = typeof screens === "function" ? screens() : screens[path];
    return body === undefined ? { status: 404, body: { errors: { form: "Not found" } } } : { body };
  });
  const runtime = makeEngine(server, options.window);
  const result = render(<App runtime={runtime} />);
  await act(() => runtime.start());
  return { ...result, runtime, server, user: options.user ?? userEvent.setup() };
}

/** Renders nodes as the children of one screen. */
export function renderNodes(
  children: unknown[],
  extra: Parameters<typeof envelope>[1] = {},
  options: { onAction?: Handler; user?: UserEvent; window?: Window } = {},
): Promise<Rendered> {
  const env = envelope(children, extra);
  return renderApp(() => env, options);
}

/** Renders one node as the only child of a screen. */
export function renderNode(
  node: unknown,
  extra: Parameters<typeof envelope>[1] = {},
  options: { onAction?: Handler; user?: UserEvent; window?: Window } = {},
): Promise<Rendered> {
  return renderNodes([node], extra, options);
}

/** Lets pending promises and effects settle. */
export async function settle(): Promise<void> {
  await act(async () => {
    await new Promise((resolve) => setTimeout(resolve, 0));
  });
}
