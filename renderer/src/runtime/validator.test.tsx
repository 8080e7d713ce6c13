// The contract's validator is a chunk of its own (validator.ts): the page's first screen is shown
// before it arrives and checked once it has; every other answer waits for it; a load that fails
// is tried once more, then the answer is a failure (and the next one tries again).
import { act, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { App } from "../app";
import { type Answer } from "./api";
import { envelope, fakeServer, makeEngine, settle } from "../test/harness";
import { contractValidator, createValidatorLoader, type Validator } from "./validator";

/** A validator that arrives when the test says (the real one, already loaded by setup.ts). */
function later(): { importer: ReturnType<typeof vi.fn<() => Promise<Validator>>>; arrive: () => Promise<void>; fail: () => Promise<void> } {
  const waiting: { resolve: (module: Validator) => void; reject: (error: Error) => void }[] = [];
  const importer = vi.fn(() => new Promise<Validator>((resolve, reject) => waiting.push({ resolve, reject })));
  const real = contractValidator.current();
  if (real === null) throw new Error("setup.ts loads the validator");
  return {
    importer,
    arrive: () =>
      act(async () => {
        for (const wait of waiting.splice(0)) wait.resolve(real);
        await new Promise((resolve) => setTimeout(resolve, 0));
      }),
    fail: () =>
      act(async () => {
        // The first try and then the retry, each failing when it is made.
        for (let i = 0; i < 2; i++) {
          for (const wait of waiting.splice(0)) wait.reject(new Error("chunk failed"));
          await new Promise((resolve) => setTimeout(resolve, 0));
        }
      }),
  };
}

/** Puts the page's data block with `screens` into the document, as the server does. */
function pageBlock(screens: Record<string, unknown>): void {
  const block = document.createElement("script");
  block.type = "application/json";
  block.id = "glimpse-first";
  block.textContent = JSON.stringify({ date: "", csrf: "page-token", screens });
  document.body.append(block);
}

afterEach(() => document.getElementById("glimpse-first")?.remove());

const FALLBACK_NODE = { type: "text", text: 5, fallback: { type: "text", text: "The fallback" } };

async function boot(
  screens: Record<string, unknown>,
  validator: ReturnType<typeof later>,
  onScreen?: (path: string) => unknown,
  options: { awaitStart?: boolean } = {},
) {
  pageBlock(screens);
  const server = fakeServer((call) => {
    const path = new URL(call.url, "http://test").searchParams.get("path") ?? "";
    const body = onScreen?.(path);
    return body === undefined ? "network-error" : { body };
  });
  const runtime = makeEngine(server, window, createValidatorLoader(validator.importer));
  const rendered = render(<App runtime={runtime} />);
  const started = runtime.start();
  if (options.awaitStart !== false) await act(() => started);
  return { ...rendered, runtime, server, started };
}

describe("the validator's loader", () => {
  it("tries a failed load once more", async () => {
    const real = contractValidator.current();
    const importer = vi.fn<() => Promise<Validator>>().mockRejectedValueOnce(new Error("offline"));
    if (real !== null) importer.mockResolvedValueOnce(real);
    const loader = createValidatorLoader(importer);
    expect(loader.current()).toBeNull();
    await expect(loader.load()).resolves.toBe(real);
    expect(loader.current()).toBe(real);
    await loader.load();
    expect(importer).toHaveBeenCalledTimes(2);
  });

  it("fails after the second try, and the next load starts again", async () => {
    const importer = vi.fn<() => Promise<Validator>>().mockRejectedValue(new Error("offline"));
    const loader = createValidatorLoader(importer);
    await expect(Promise.all([loader.load(), loader.load()])).rejects.toThrow("offline");
    expect(importer).toHaveBeenCalledTimes(2);
    await expect(loader.load()).rejects.toThrow("offline");
    expect(importer).toHaveBeenCalledTimes(4);
  });
});

describe("the page's first screen and the validator", () => {
  it("is shown before the validator arrives, its nodes as the server wrote them, then parsed", async () => {
    const validator = later();
    const { runtime, server } = await boot({ "/": envelope([{ type: "text", text: "Hello" }, FALLBACK_NODE]) }, validator);
    expect(runtime.validator.current()).toBeNull();
    expect(screen.getByText("Hello")).toBeTruthy();
    // Not checked yet: a node of a known type is taken as it is.
    expect(screen.getByText("5")).toBeTruthy();
    expect(server.calls).toEqual([]);

    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    await validator.arrive();
    expect(screen.getByText("Hello")).toBeTruthy();
    // Checked: the invalid node gives way to its fallback, as on any screen.
    expect(screen.queryByText("5")).toBeNull();
    expect(screen.getByText("The fallback")).toBeTruthy();
    expect(errors).toHaveBeenCalledWith(expect.stringContaining("invalid node at /screen/children/1"));
    expect(screen.queryByRole("alert")).toBeNull();
  });

  it("is left as drawn when every node parses", async () => {
    const validator = later();
    const { runtime } = await boot({ "/": envelope([{ type: "text", text: "Hello" }]) }, validator);
    const shown = runtime.store.get().screen;
    await validator.arrive();
    expect(runtime.validator.current()).not.toBeNull();
    // Not drawn again: the store holds the same screen.
    expect(runtime.store.get().screen).toBe(shown);
    expect(screen.getByText("Hello")).toBeTruthy();
  });

  it("gives way to the error fallback when it turns out invalid", async () => {
    const validator = later();
    await boot({ "/": { ...envelope([{ type: "text", text: "Hello" }]), v: 2 } }, validator);
    expect(screen.getByText("Hello")).toBeTruthy();

    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    await validator.arrive();
    expect(screen.queryByText("Hello")).toBeNull();
    expect(document.querySelector(".app--error")?.textContent).toContain("Something went wrong");
    expect(screen.getByRole("alert").textContent).toContain("Something went wrong");
    expect(errors).toHaveBeenCalledWith(expect.stringContaining("Glimpse: invalid envelope"));
  });

  it("gives way to the error fallback when the validator fails to load twice; trying again loads it", async () => {
    const validator = later();
    const next = envelope([{ type: "text", text: "Fetched" }]);
    const { runtime } = await boot({ "/": envelope([{ type: "text", text: "Hello" }]) }, validator, () => next);
    expect(screen.getByText("Hello")).toBeTruthy();

    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    await validator.fail();
    expect(validator.importer).toHaveBeenCalledTimes(2);
    expect(runtime.validator.current()).toBeNull();
    expect(screen.queryByText("Hello")).toBeNull();
    expect(document.querySelector(".app--error")?.textContent).toContain("Something went wrong");
    expect(errors).toHaveBeenCalledWith(expect.stringContaining("the validator did not load"));

    // The notice's retry asks the server; its answer waits for the validator, loaded anew.
    await userEvent.setup().click(screen.getByRole("button", { name: "Try again" }));
    expect(validator.importer).toHaveBeenCalledTimes(3);
    expect(screen.queryByText("Fetched")).toBeNull();
    await validator.arrive();
    expect(screen.getByText("Fetched")).toBeTruthy();
    expect(screen.queryByRole("alert")).toBeNull();
  });

  it("makes a later screen wait for the validator, and checks it as before", async () => {
    const validator = later();
    const screens: Record<string, unknown> = {
      "/good": envelope([{ type: "text", text: "Good" }]),
      "/bad": { ...envelope([{ type: "text", text: "Bad" }]), meta: { brand: 1 } },
    };
    const { runtime } = await boot({ "/": envelope([{ type: "text", text: "Hello" }]) }, validator, (path) => screens[path]);

    let answer: Answer | undefined;
    void runtime.api.screen("/good").then((a) => (answer = a));
    await settle();
    expect(answer).toBeUndefined();
    await validator.arrive();
    expect(answer?.kind).toBe("envelope");

    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    await act(() => runtime.run({ type: "navigate", to: "/bad" }));
    expect(screen.getByText("Hello")).toBeTruthy();
    expect(screen.getByRole("alert").textContent).toContain("Something went wrong");
    expect(errors).toHaveBeenCalledWith(expect.stringContaining("Glimpse: invalid envelope"));

    await act(() => runtime.run({ type: "navigate", to: "/good" }));
    expect(screen.getByText("Good")).toBeTruthy();
  });

  it("leaves a redirect in the page to wait for the validator, then follows it from the page", async () => {
    const validator = later();
    const { server, started } = await boot(
      {
        "/": { effects: [{ type: "replace", to: "/sign-in" }] },
        "/sign-in": envelope([{ type: "text", text: "Sign in" }]),
      },
      validator,
      undefined,
      { awaitStart: false },
    );
    await settle();
    expect(screen.queryByText("Sign in")).toBeNull();
    await validator.arrive();
    await act(() => started);
    expect(screen.getByText("Sign in")).toBeTruthy();
    expect(server.calls).toEqual([]);
  });
});
