import { act, fireEvent, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  captureError,
  readReportingSettings,
  scrubUrl,
  startReporting,
  type SentryInitOptions,
  type SentryModule,
  wantsTestErrorButton,
} from "./reporting";
import { mountTestErrorButton, TEST_ERROR_MESSAGE } from "./TestErrorButton";

const SETTINGS = {
  dsn: "https://publickey@errors.example/1",
  environment: "production",
  release: "glimpse@1.2.3",
  tracesSampleRate: 0.1,
  tunnel: "/errors/envelope",
};

function addMeta(content: string) {
  const meta = document.createElement("meta");
  meta.name = "glimpse-sentry";
  meta.content = content;
  document.head.append(meta);
}

/** A stand-in for @sentry/browser that records what the reporter does with it. */
function fakeSentry() {
  const inits: SentryInitOptions[] = [];
  const captured: unknown[] = [];
  const module: SentryModule = {
    init: (options) => {
      inits.push(options);
    },
    captureException: (error) => {
      captured.push(error);
    },
  };
  const load = vi.fn(() => Promise.resolve(module));
  return { inits, captured, load };
}

let unmount: (() => void) | null = null;

afterEach(async () => {
  document.head.querySelectorAll('meta[name="glimpse-sentry"]').forEach((m) => {
    m.remove();
  });
  unmount?.();
  unmount = null;
  // Back to "off" for the tests that follow in this worker.
  await startReporting(document, "http://localhost:3000", fakeSentry().load);
});

describe("error reporting", () => {
  it("loads nothing without a DSN in the page shell", async () => {
    const sentry = fakeSentry();
    expect(readReportingSettings(document)).toBeNull();
    expect(await startReporting(document, "https://app.example", sentry.load)).toBeNull();
    await captureError(new Error("x"));
    expect(sentry.load).not.toHaveBeenCalled();
  });

  it("loads nothing when the settings are unreadable", async () => {
    addMeta("{not json");
    const sentry = fakeSentry();
    expect(await startReporting(document, "https://app.example", sentry.load)).toBeNull();
    expect(sentry.load).not.toHaveBeenCalled();
  });

  it("starts Sentry with the settings the spec fixes", async () => {
    addMeta(JSON.stringify(SETTINGS));
    const sentry = fakeSentry();
    await startReporting(document, "https://app.example", sentry.load);
    expect(sentry.load).toHaveBeenCalledTimes(1);
    expect(sentry.inits).toHaveLength(1);
    const options = sentry.inits[0];
    expect(options).toMatchObject({
      dsn: SETTINGS.dsn,
      environment: "production",
      release: "glimpse@1.2.3",
      tunnel: "/errors/envelope",
      tracesSampleRate: 0.1,
      sendDefaultPii: true,
      debug: false,
    });
    // Trace headers go to our own origin only.
    const propagates = (url: string) =>
      options?.tracePropagationTargets.some((t) => (typeof t === "string" ? url.startsWith(t) : t.test(url)));
    expect(propagates("https://app.example/ui/screen?path=/")).toBe(true);
    expect(propagates("/ui/actions/session.sign_in")).toBe(true);
    expect(propagates("https://errors.example/api/1/envelope/")).toBe(false);
    expect(propagates("//evil.example/x")).toBe(false);
  });

  it("scrubs credentials from events and breadcrumbs", async () => {
    addMeta(JSON.stringify(SETTINGS));
    const sentry = fakeSentry();
    await startReporting(document, "https://app.example", sentry.load);
    const options = sentry.inits[0];
    if (options === undefined) throw new Error("not started");
    const event = options.beforeSend({
      request: {
        url: "https://app.example/?creds=c2VjcmV0&page=2",
        query_string: "creds=c2VjcmV0",
        cookies: { glimpse_session: "s" },
        headers: { Cookie: "glimpse_session=s", "X-CSRF-Token": "t", "User-Agent": "ua" },
      },
    });
    expect(event.request.url).toBe("https://app.example/?creds=%5BFiltered%5D&page=2");
    expect(event.request.query_string).toBeUndefined();
    expect(event.request.cookies).toBeUndefined();
    expect(event.request.headers).toEqual({ "User-Agent": "ua" });
    const crumb = options.beforeBreadcrumb({ data: { from: "/?login=abc", to: "/dashboard", url: "/x?token=t" } });
    expect(crumb.data).toEqual({ from: "/?login=%5BFiltered%5D", to: "/dashboard", url: "/x?token=%5BFiltered%5D" });
    expect(scrubUrl("/plain?a=1")).toBe("/plain?a=1");
    expect(scrubUrl("/unsubscription?from=t0k3n")).toBe("/unsubscription?from=%5BFiltered%5D");
    expect(scrubUrl("/access-recovery?key=k3y")).toBe("/access-recovery?key=%5BFiltered%5D");
  });
});

describe("the hidden test-error button", () => {
  it("is not there without showerrbtn=plz", () => {
    expect(wantsTestErrorButton("")).toBe(false);
    expect(wantsTestErrorButton("?showerrbtn=yes")).toBe(false);
    unmount = mountTestErrorButton(document, "?showerrbtn=no");
    expect(unmount).toBeNull();
    expect(screen.queryByRole("button", { name: "Raise a test error" })).toBeNull();
  });

  it("throws an error the reporter captures", async () => {
    addMeta(JSON.stringify(SETTINGS));
    const sentry = fakeSentry();
    await startReporting(document, "https://app.example", sentry.load);
    act(() => {
      unmount = mountTestErrorButton(document, "?path=/&showerrbtn=plz");
    });
    const button = await screen.findByRole("button", { name: "Raise a test error" });

    // The error is thrown uncaught, as a real failure is; the page sees it as an error event.
    const uncaught: unknown[] = [];
    const onError = (e: ErrorEvent) => {
      uncaught.push(e.error);
      e.preventDefault();
    };
    window.addEventListener("error", onError);
    try {
      fireEvent.click(button);
    } catch (e) {
      uncaught.push(e); // some environments rethrow from dispatchEvent instead
    } finally {
      window.removeEventListener("error", onError);
    }
    expect(uncaught.map((e) => (e instanceof Error ? e.message : e))).toContain(TEST_ERROR_MESSAGE);

    await vi.waitFor(() => {
      expect(sentry.captured).toHaveLength(1);
    });
    expect(sentry.captured[0]).toBeInstanceOf(Error);
    expect((sentry.captured[0] as Error).message).toBe(TEST_ERROR_MESSAGE);
  });
});
