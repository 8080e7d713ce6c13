// The transport: GET /ui/screen and POST /ui/actions/<name>, as protocol.md says. It has no
// side effects of its own: it answers what the server said, and the runtime acts on it.
import { type ActionResult, actionResultSchema, type Envelope, envelopeSchema } from "../schema/envelope";
import { parseTime } from "./clock";
import { t } from "./copy";

/** The message shown when a request fails without a message from the server (the brand's words). */
export const genericError = (): string => t("genericError");

/** The header that carries the CSRF token on a POST, and a newly issued one on an answer. */
const CSRF_HEADER = "X-CSRF-Token";

/** The schema version this renderer speaks. */
export const SDUI_VERSION = "1";

export type Answer =
  | { kind: "envelope"; envelope: Envelope; receivedAt: number }
  | { kind: "result"; result: ActionResult; status: number }
  | { kind: "reload" }
  | { kind: "failure"; message: string; status: number };

export interface Api {
  /** Fetches the screen for a path with its query. */
  screen(path: string): Promise<Answer>;
  /** Posts a server action with the current path. */
  action(name: string, values: Record<string, unknown>, path: string, options?: { keepalive?: boolean }): Promise<Answer>;
  /** Posts a file as the raw body of a server action (protocol.md, Uploads). */
  upload(name: string, file: Blob): Promise<Answer>;
  /** The CSRF token of the last envelope, or the newer one an answer's header carried. */
  csrf(): string | undefined;
}

/**
 * The envelope with `meta.serverNow` set to the answer's server time: the `Date` header when it
 * has one (a page the server keeps whole has no serverNow, and a 304 revalidation refreshes Date,
 * not the cached body), else the body's own `meta.serverNow`. A body's serverNow within the Date
 * header's second is the same instant, only more precise, and is kept.
 */
function withServerNow(envelope: Envelope, date: string | null): Envelope {
  const at = date === null ? Number.NaN : Date.parse(date);
  if (Number.isNaN(at)) return envelope;
  const own = envelope.meta.serverNow === undefined ? Number.NaN : parseTime(envelope.meta.serverNow);
  if (own >= at && own < at + 1000) return envelope;
  return { ...envelope, meta: { ...envelope.meta, serverNow: new Date(at).toISOString() } };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * @param initialCsrf the token the server put in the page (`<meta name="glimpse-csrf">`), for a
 *   POST made before any envelope, such as a sign-in link's session.from_url.
 */
export function createApi(fetcher: typeof fetch, now: () => number = Date.now, initialCsrf?: string): Api {
  let csrf = initialCsrf;

  async function request(url: string, init: RequestInit, headers: Record<string, string> = {}): Promise<Answer> {
    let response: Response;
    let body: unknown;
    try {
      response = await fetcher(url, {
        ...init,
        credentials: "same-origin",
        headers: { ...headers, Accept: "application/json", "X-SDUI-Version": SDUI_VERSION },
      });
    } catch {
      return { kind: "failure", message: genericError(), status: 0 };
    }
    // The token travels in a header: on every screen (a page the server keeps whole carries it
    // nowhere else) and on an action that changes who is signed in (a sign-in rotates it; a POST
    // made before the next envelope must already carry it).
    const issued = response.headers.get(CSRF_HEADER);
    if (issued !== null && issued !== "") csrf = issued;
    try {
      body = await response.json();
    } catch {
      return { kind: "failure", message: genericError(), status: response.status };
    }
    return interpret(body, response.status, issued !== null && issued !== "", response.headers.get("Date"));
  }

  function interpret(body: unknown, status: number, headerToken: boolean, date: string | null): Answer {
    if (isRecord(body) && body.reload === true) return { kind: "reload" };
    if (isRecord(body) && "v" in body) {
      const parsed = envelopeSchema.safeParse(body);
      if (!parsed.success) {
        console.error(`Glimpse: invalid envelope: ${parsed.error.message}`);
        return { kind: "failure", message: genericError(), status };
      }
      // The header's token wins; meta.csrf is the fallback.
      if (!headerToken) csrf = parsed.data.meta.csrf ?? csrf;
      return { kind: "envelope", envelope: withServerNow(parsed.data, date), receivedAt: now() };
    }
    const parsed = actionResultSchema.safeParse(body);
    if (!parsed.success) {
      console.error(`Glimpse: invalid action result: ${parsed.error.message}`);
      return { kind: "failure", message: genericError(), status };
    }
    const { effects, errors } = parsed.data;
    const said = (effects?.length ?? 0) > 0 || errors?.form !== undefined || errors?.fields !== undefined;
    if (status >= 400 && !said) return { kind: "failure", message: genericError(), status };
    return { kind: "result", result: parsed.data, status };
  }

  return {
    screen: (path) => request(`/ui/screen?path=${encodeURIComponent(path)}`, { method: "GET" }),
    action: (name, values, path, options) => {
      const headers: Record<string, string> = { "Content-Type": "application/json" };
      if (csrf !== undefined) headers[CSRF_HEADER] = csrf;
      return request(
        `/ui/actions/${name}`,
        { method: "POST", body: JSON.stringify({ values, path }), keepalive: options?.keepalive === true },
        headers,
      );
    },
    upload: (name, file) => {
      const headers: Record<string, string> = { "Content-Type": file.type === "" ? "application/octet-stream" : file.type };
      if (csrf !== undefined) headers[CSRF_HEADER] = csrf;
      return request(`/ui/actions/${name}`, { method: "POST", body: file }, headers);
    },
    csrf: () => csrf,
  };
}
