// Error reporting in the browser (docs/error-reporting.md). The server writes
// <meta name="glimpse-sentry"> into the page shell only when a DSN is configured; only then is
// @sentry/browser loaded, with a dynamic import, so the first visit's bundle does not carry it.

/** The settings the server sends in the page shell (engine/server/reporting.go). */
export interface ReportingSettings {
  dsn: string;
  environment: string;
  release: string;
  tracesSampleRate: number;
  tunnel: string;
}

/** The part of @sentry/browser the reporter uses; tests pass a fake of it. */
export interface SentryModule {
  /** Sentry.init with these options plus browser tracing. */
  init(options: SentryInitOptions): void;
  captureException(error: unknown): void;
}

/** The options the reporter gives Sentry.init (a subset of BrowserOptions). */
export interface SentryInitOptions {
  dsn: string;
  environment: string;
  release: string;
  tunnel: string;
  tracesSampleRate: number;
  tracePropagationTargets: (string | RegExp)[];
  sendDefaultPii: boolean;
  debug: boolean;
  beforeSend: <E extends ScrubbableEvent>(event: E) => E;
  beforeBreadcrumb: <B extends ScrubbableBreadcrumb>(breadcrumb: B) => B;
}

/** What scrubbing touches in an event; other fields pass through untouched. */
export interface ScrubbableEvent {
  request?: { url?: string; query_string?: unknown; cookies?: unknown; headers?: Record<string, string> };
}

/** What scrubbing touches in a breadcrumb (navigation from/to, fetch and xhr url). */
export interface ScrubbableBreadcrumb {
  data?: { [key: string]: unknown };
}

export type SentryLoader = () => Promise<SentryModule>;

/**
 * Query parameters that carry credentials, one-time tokens or a person's details and must never be
 * reported: the server's list (engine/redact), so a browser's report hides what its access log does
 * (the cancel link's `from`, the activation link's `key`, …).
 */
const SECRET_PARAMS = [
  "creds",
  "login",
  "token",
  "code",
  "state",
  "access_token",
  "from",
  "reset",
  "key",
  "id",
  "subscription",
  "password",
  "email",
];

/** The settings from the page shell, or null when reporting is off (no or unreadable tag). */
export function readReportingSettings(doc: Document): ReportingSettings | null {
  const content = doc.querySelector('meta[name="glimpse-sentry"]')?.getAttribute("content");
  if (content === null || content === undefined || content === "") return null;
  // Checked by hand rather than with zod's full API, which would add ~15 KB to the first visit.
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null) return null;
  const v = value as Record<string, unknown>;
  const { dsn, environment, release, tracesSampleRate, tunnel } = v;
  if (
    typeof dsn !== "string" ||
    dsn === "" ||
    typeof environment !== "string" ||
    typeof release !== "string" ||
    typeof tracesSampleRate !== "number" ||
    tracesSampleRate < 0 ||
    tracesSampleRate > 1 ||
    typeof tunnel !== "string" ||
    !tunnel.startsWith("/")
  ) {
    return null;
  }
  return { dsn, environment, release, tracesSampleRate, tunnel };
}

/** url with the values of secret query parameters replaced; relative URLs stay relative. */
export function scrubUrl(url: string): string {
  const base = "http://scrub.invalid";
  let parsed: URL;
  try {
    parsed = new URL(url, base);
  } catch {
    return url.split("?")[0] ?? "";
  }
  let changed = false;
  for (const name of SECRET_PARAMS) {
    if (parsed.searchParams.has(name)) {
      parsed.searchParams.set(name, "[Filtered]");
      changed = true;
    }
  }
  if (!changed) return url;
  const out = parsed.toString();
  return out.startsWith(base) ? out.slice(base.length) : out;
}

function scrubEvent<E extends ScrubbableEvent>(event: E): E {
  const req = event.request;
  if (req !== undefined) {
    if (req.url !== undefined) req.url = scrubUrl(req.url);
    delete req.query_string;
    delete req.cookies;
    if (req.headers !== undefined) {
      req.headers = Object.fromEntries(
        Object.entries(req.headers).filter(([name]) => !/cookie|authorization|csrf|token/i.test(name)),
      );
    }
  }
  return event;
}

function scrubBreadcrumb<B extends ScrubbableBreadcrumb>(breadcrumb: B): B {
  const data = breadcrumb.data;
  if (data !== undefined) {
    for (const key of ["url", "from", "to"]) {
      const value = data[key];
      if (typeof value === "string") data[key] = scrubUrl(value);
    }
  }
  return breadcrumb;
}

/** The Sentry.init options for settings on a page at origin. */
export function sentryOptions(settings: ReportingSettings, origin: string): SentryInitOptions {
  return {
    dsn: settings.dsn,
    environment: settings.environment,
    release: settings.release,
    // Same-origin posting: the page's CSP allows only 'self', and ad blockers leave it alone.
    tunnel: settings.tunnel,
    tracesSampleRate: settings.tracesSampleRate,
    // Trace headers go only to our own server: the page's origin and relative URLs.
    tracePropagationTargets: [origin, /^\/(?!\/)/],
    sendDefaultPii: true,
    debug: false,
    beforeSend: scrubEvent,
    beforeBreadcrumb: scrubBreadcrumb,
  };
}

/** Loads @sentry/browser as a separate chunk, fetched only when a DSN is configured. */
async function loadSentry(): Promise<SentryModule> {
  const sentry = await import("@sentry/browser");
  return {
    init: (options) => {
      sentry.init({ ...options, integrations: [sentry.browserTracingIntegration()] });
    },
    captureException: (error) => {
      sentry.captureException(error);
    },
  };
}

let started: Promise<SentryModule | null> = Promise.resolve(null);

/**
 * Starts the reporter when the page shell configures one; without it nothing is loaded. The
 * returned promise settles once Sentry is initialised (or at once with null when off, or when
 * loading fails: a reporter that cannot load must not break the app).
 */
export function startReporting(
  doc: Document,
  origin: string,
  load: SentryLoader = loadSentry,
): Promise<SentryModule | null> {
  const settings = readReportingSettings(doc);
  if (settings === null) {
    started = Promise.resolve(null);
    return started;
  }
  started = load().then(
    (sentry) => {
      sentry.init(sentryOptions(settings, origin));
      return sentry;
    },
    () => null,
  );
  return started;
}

/** Reports error once the reporter has started; a no-op when reporting is off. */
export function captureError(error: unknown): Promise<void> {
  return started.then((sentry) => {
    sentry?.captureException(error);
  });
}

/** Whether the URL asks for the hidden test-error button (spec: `showerrbtn=plz`). */
export function wantsTestErrorButton(search: string): boolean {
  return new URLSearchParams(search).get("showerrbtn") === "plz";
}
