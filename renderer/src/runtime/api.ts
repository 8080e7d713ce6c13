// The transport: GET /ui/screen and POST /ui/actions/<name>, as protocol.md says. It has no
// side effects of its own: it answers what the server said, and the runtime acts on it.
import type { ActionResult, Envelope } from "../schema/envelope";
import { parseTime } from "./clock";
import { t } from "./copy";
import { contractValidator, type Validator, type ValidatorLoader } from "./validator";

/** The message shown when a request fails without a message from the server (the brand's words). */
export const genericError = (): string => t("genericError");

/** The header that carries the CSRF token on a POST, and a newly issued one on an answer. */
const CSRF_HEADER = "X-CSRF-Token";

/** The schema version this renderer speaks. */
export const SDUI_VERSION = "1";

export type Answer =
  | {
      kind: "envelope";
      envelope: Envelope;
      receivedAt: number;
      /**
       * Only for an envelope from the page shown before the contract's validator arrived (it is
       * taken as the server wrote it): the answer once the validator has checked it.
       */
      check?: Promise<Answer>;
    }
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
  /** Reads one page of a name_list's names from its source; null when that fails. */
  names(src: string, page: { search: string; offset: number; limit: number }): Promise<NamePage | null>;
  /** Fetches a file to download: its body, or why it cannot be had in words a person can read. */
  file(url: string): Promise<FileAnswer>;
}

/** A download's answer: the file, or the message to show instead (never an error body as the file). */
export type FileAnswer = { kind: "file"; blob: Blob } | { kind: "failure"; message: string; status: number };

/** What a download asks for: the file, else the server's error as JSON (not its page for a browser). */
const FILE_ACCEPT = "application/pdf, application/octet-stream;q=0.9, application/json;q=0.8";

/** Whether a response is an error's body rather than a file: JSON or a page. */
function isErrorBody(response: Response): boolean {
  const type = (response.headers.get("Content-Type") ?? "").toLowerCase();
  return !response.ok || type.startsWith("application/json") || type.startsWith("text/html");
}

/** One page of a name_list (the server's profile.AudiencePage). */
export interface NamePage {
  names: string[];
  total: number;
  next: number | null;
}

/** The body as a NamePage, or null: read by hand, as zod is not in the first bundle. */
export function asNamePage(body: unknown): NamePage | null {
  if (!isRecord(body)) return null;
  const { names, total, next } = body;
  if (!Array.isArray(names) || !names.every((name) => typeof name === "string")) return null;
  if (typeof total !== "number" || !Number.isInteger(total) || total < 0) return null;
  if (next !== null && (typeof next !== "number" || !Number.isInteger(next) || next < 0)) return null;
  return { names, total, next };
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

/**
 * The first screen the server wrote into the page (`<script type="application/json"
 * id="glimpse-first">`): what GET /ui/screen answers for the page's path, and for the paths its
 * guards send on to ("/" → "/sign-in"), with what that answer's headers would carry.
 */
export interface FirstScreen {
  /** The server time of the answers (the Date header's part). */
  date: string;
  /** The CSRF token (the X-CSRF-Token header's part). */
  csrf: string;
  /** Answer bodies by path with query, as `screen` is asked for them. */
  screens: Map<string, unknown>;
  /** The client's clock when the page arrived, the moment `date` was true. */
  receivedAt: number;
}

/** The data block's id in index.html. */
export const FIRST_SCREEN_ID = "glimpse-first";

/** The page's first screen from the data block's text; undefined when absent or malformed. */
export function parseFirstScreen(text: string | null | undefined, receivedAt: number): FirstScreen | undefined {
  if (text === null || text === undefined || text === "") return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    console.error("Glimpse: the page's first screen is not JSON");
    return undefined;
  }
  // The block's own frame is checked by hand (its answers are checked as any answer is): the
  // contract's validator is not here yet.
  if (!isRecord(raw) || typeof raw.date !== "string" || typeof raw.csrf !== "string" || !isRecord(raw.screens)) {
    console.error("Glimpse: invalid first screen: it needs date, csrf and screens");
    return undefined;
  }
  return { date: raw.date, csrf: raw.csrf, screens: new Map(Object.entries(raw.screens)), receivedAt };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Whether an answer body has the envelope's frame as far as showing it touches it (the brand's
 * theme, the screen, the server time), so that it can be shown before the validator checks it.
 */
function hasEnvelopeFrame(body: unknown): boolean {
  if (!isRecord(body) || !("v" in body) || body.reload === true || !isRecord(body.screen) || !isRecord(body.meta)) return false;
  const { brand, serverNow } = body.meta;
  return isRecord(brand) && isRecord(brand.theme) && (serverNow === undefined || typeof serverNow === "string");
}

/**
 * @param initialCsrf the token the server put in the page (`<meta name="glimpse-csrf">`), for a
 *   POST made before any envelope, such as a sign-in link's session.from_url.
 * @param first the screens the server put in the page: `screen` answers from them instead of
 *   fetching, until it is asked for a path they lack, an envelope from them is shown, or anything
 *   is posted (which may change what the server would answer).
 * @param validator the contract's validator (a chunk of its own): every answer waits for it, but
 *   an envelope from the page that comes before it is answered at once, with its check to follow.
 */
export function createApi(
  fetcher: typeof fetch,
  now: () => number = Date.now,
  initialCsrf?: string,
  first?: FirstScreen,
  validator: ValidatorLoader = contractValidator,
): Api {
  let csrf = initialCsrf;
  let pending = first;

  /** The page's answer for path, if it has one; it is used once. */
  function fromPage(path: string): Promise<Answer> | undefined {
    const page = pending;
    if (page === undefined) return undefined;
    const body = page.screens.get(path);
    if (body === undefined) {
      pending = undefined;
      return undefined;
    }
    // Whatever follows (a redirect's next screen) may still come from the page; this path's
    // answer is spent, as a fetched one would be.
    page.screens.delete(path);
    const token = page.csrf !== "";
    const use = (answer: Answer): Answer => {
      if (token) csrf = page.csrf;
      if (answer.kind === "envelope") pending = undefined;
      return answer;
    };
    const check = interpret(body, 200, token, page.date, page.receivedAt);
    if (validator.current() === null && hasEnvelopeFrame(body)) {
      // Shown (and the server's drawing of it adopted) before the validator arrives; the runtime
      // acts on its check when it has (runtime.ts).
      const envelope = withServerNow(body as unknown as Envelope, page.date);
      return Promise.resolve(use({ kind: "envelope", envelope, receivedAt: page.receivedAt, check }));
    }
    return check.then((answer) => {
      if (answer.kind !== "failure") return use(answer);
      // An invalid envelope in the page: the server is asked again, as if there were none. Not
      // when the validator failed to load: a fetched answer could not be checked either.
      pending = undefined;
      return validator.current() === null ? answer : fetchScreen(path);
    });
  }

  function fetchScreen(path: string): Promise<Answer> {
    return request(`/ui/screen?path=${encodeURIComponent(path)}`, { method: "GET" });
  }

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
    return interpret(body, response.status, issued !== null && issued !== "", response.headers.get("Date"), now());
  }

  /** The answer a body makes, once the validator is here to check it. */
  async function interpret(
    body: unknown,
    status: number,
    headerToken: boolean,
    date: string | null,
    receivedAt: number,
  ): Promise<Answer> {
    if (isRecord(body) && body.reload === true) return { kind: "reload" };
    let contract: Validator;
    try {
      contract = await validator.load();
    } catch (error) {
      console.error(`Glimpse: the validator did not load: ${String(error)}`);
      return { kind: "failure", message: genericError(), status };
    }
    const { actionResultSchema, envelopeSchema } = contract;
    if (isRecord(body) && "v" in body) {
      const parsed = envelopeSchema.safeParse(body);
      if (!parsed.success) {
        console.error(`Glimpse: invalid envelope: ${parsed.error.message}`);
        return { kind: "failure", message: genericError(), status };
      }
      // The header's token wins; meta.csrf is the fallback.
      if (!headerToken) csrf = parsed.data.meta.csrf ?? csrf;
      return { kind: "envelope", envelope: withServerNow(parsed.data, date), receivedAt };
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

  async function names(src: string, page: { search: string; offset: number; limit: number }): Promise<NamePage | null> {
    const url = new URL(src, "http://glimpse.invalid");
    if (url.origin !== "http://glimpse.invalid") return null; // a source is one of ours
    url.searchParams.set("q", page.search);
    url.searchParams.set("offset", String(page.offset));
    url.searchParams.set("limit", String(page.limit));
    try {
      const response = await fetcher(url.pathname + url.search, {
        method: "GET",
        credentials: "same-origin",
        headers: { Accept: "application/json", "X-SDUI-Version": SDUI_VERSION },
      });
      if (!response.ok) return null;
      return asNamePage(await response.json());
    } catch {
      return null;
    }
  }

  async function file(url: string): Promise<FileAnswer> {
    let response: Response;
    try {
      response = await fetcher(url, {
        method: "GET",
        credentials: "same-origin",
        headers: { Accept: FILE_ACCEPT, "X-SDUI-Version": SDUI_VERSION },
      });
    } catch {
      return { kind: "failure", message: genericError(), status: 0 };
    }
    if (!isErrorBody(response)) {
      try {
        return { kind: "file", blob: await response.blob() };
      } catch {
        return { kind: "failure", message: genericError(), status: response.status };
      }
    }
    // The server says why in an action result's form error (handleError); anything else reads as
    // the generic message.
    let message = genericError();
    try {
      const body: unknown = await response.json();
      const errors = isRecord(body) ? body.errors : undefined;
      const form = isRecord(errors) ? errors.form : undefined;
      if (typeof form === "string" && form !== "") message = form;
    } catch {
      // not JSON: the generic message
    }
    return { kind: "failure", message, status: response.status };
  }

  return {
    names,
    file,
    screen: (path) => fromPage(path) ?? fetchScreen(path),
    action: (name, values, path, options) => {
      pending = undefined;
      const headers: Record<string, string> = { "Content-Type": "application/json" };
      if (csrf !== undefined) headers[CSRF_HEADER] = csrf;
      return request(
        `/ui/actions/${name}`,
        { method: "POST", body: JSON.stringify({ values, path }), keepalive: options?.keepalive === true },
        headers,
      );
    },
    upload: (name, file) => {
      pending = undefined;
      const headers: Record<string, string> = { "Content-Type": file.type === "" ? "application/octet-stream" : file.type };
      if (csrf !== undefined) headers[CSRF_HEADER] = csrf;
      return request(`/ui/actions/${name}`, { method: "POST", body: file }, headers);
    },
    csrf: () => csrf,
  };
}
