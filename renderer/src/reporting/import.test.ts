// The real loader: @sentry/browser is imported only when the page shell carries a DSN. The module
// is mocked so the test can tell whether it was ever evaluated.
import { afterEach, expect, it, vi } from "vitest";
import { startReporting } from "./reporting";

const sentry = vi.hoisted(() => ({ imported: false, inits: [] as unknown[] }));

vi.mock("@sentry/browser", () => {
  sentry.imported = true;
  return {
    init: (options: unknown) => {
      sentry.inits.push(options);
    },
    captureException: () => "id",
    browserTracingIntegration: () => ({ name: "BrowserTracing" }),
  };
});

afterEach(() => {
  document.head.querySelectorAll('meta[name="glimpse-sentry"]').forEach((m) => {
    m.remove();
  });
});

it("imports @sentry/browser only with a DSN, then starts it with browser tracing", async () => {
  await startReporting(document, "https://app.example");
  expect(sentry.imported).toBe(false);

  const meta = document.createElement("meta");
  meta.name = "glimpse-sentry";
  meta.content = JSON.stringify({
    dsn: "https://publickey@errors.example/1",
    environment: "production",
    release: "glimpse@1.2.3",
    tracesSampleRate: 0.1,
    tunnel: "/errors/envelope",
  });
  document.head.append(meta);
  await startReporting(document, "https://app.example");
  expect(sentry.imported).toBe(true);
  expect(sentry.inits).toHaveLength(1);
  expect(sentry.inits[0]).toMatchObject({
    dsn: "https://publickey@errors.example/1",
    integrations: [{ name: "BrowserTracing" }],
  });

  meta.remove();
  await startReporting(document, "https://app.example"); // off again for later tests in this worker
});
