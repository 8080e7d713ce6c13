// The runtime wires the transport, the store, the router and the action runner together, and
// applies what the server answers: a screen, effects, errors, or a request to reload.
import type { Action } from "../schema/action";
import type { Envelope } from "../schema/envelope";
import { escapeToken } from "../schema/token";
import { type ActionContext, runAction, type RunnerHost } from "./actions";
import { type Answer, type Api, createApi, FIRST_SCREEN_ID, type FirstScreen, genericError, parseFirstScreen } from "./api";
import { createForms, type Forms } from "./forms";
import { createRouter, type Origin, type Router } from "./router";
import { createStore, type Store } from "./store";
import { applyTheme, applyTitle } from "./theme";
import { contractValidator, type ValidatorLoader } from "./validator";

/** sessionStorage key of the last stale-client reload, so a loop of 409s reloads only once. */
export const RELOAD_KEY = "glimpse.reloadedAt";
const RELOAD_GUARD_MS = 60_000;

export interface Runtime {
  readonly window: Window;
  readonly store: Store;
  readonly api: Api;
  readonly forms: Forms;
  readonly router: Router;
  /** The contract's validator, a chunk of its own: NodeView parses nodes with it once it is here. */
  readonly validator: ValidatorLoader;
  run(action: Action, context?: ActionContext): Promise<boolean>;
  /** Applies a server answer (a screen, an action result, a reload request or a failure). */
  apply(answer: Answer, origin: Origin): Promise<boolean>;
  start(): Promise<void>;
  stop(): void;
}

export interface EngineOptions {
  window: Window;
  fetch: typeof fetch;
  now?: () => number;
  /** The contract's validator; the app's chunk unless a test hands another. */
  validator?: ValidatorLoader;
}

/** The CSRF token the server writes into the served page for the first POST. */
export function pageCsrf(document: Document): string | undefined {
  const content = document.querySelector('meta[name="glimpse-csrf"]')?.getAttribute("content");
  return content === null || content === undefined || content === "" ? undefined : content;
}

/**
 * The first screen the server writes into the served page, if any. It was composed when the page
 * was answered, so its clock offset is taken against the moment the page's response arrived (the
 * navigation's responseStart), not the moment this script runs.
 */
export function pageFirstScreen(window: Window, now: () => number): FirstScreen | undefined {
  const text = window.document.getElementById(FIRST_SCREEN_ID)?.textContent;
  return parseFirstScreen(text, pageArrivedAt(window) ?? now());
}

/** The client time the page's response began to arrive, when the browser says. */
function pageArrivedAt(window: Window): number | undefined {
  const { performance } = window;
  if (typeof performance.getEntriesByType !== "function") return undefined;
  const [navigation] = performance.getEntriesByType("navigation");
  if (navigation === undefined || !("responseStart" in navigation) || typeof navigation.responseStart !== "number") return undefined;
  const at = performance.timeOrigin + navigation.responseStart;
  return Number.isFinite(at) && navigation.responseStart > 0 ? at : undefined;
}

function sessionStore(window: Window): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}

export function createEngine(options: EngineOptions): Runtime {
  const { window } = options;
  const now = options.now ?? Date.now;
  const store = createStore();
  const validator = options.validator ?? contractValidator;
  const api = createApi(options.fetch, now, pageCsrf(window.document), pageFirstScreen(window, now), validator);
  const forms = createForms();
  const waits = new Set<() => void>();

  /** Cancels every pending `after`: they belong to the screen that is going away. */
  function cancelWaits(): void {
    for (const cancel of waits) cancel();
    waits.clear();
  }

  function wait(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = window.setTimeout(() => {
        waits.delete(cancel);
        resolve(true);
      }, ms);
      const cancel = (): void => {
        window.clearTimeout(timer);
        resolve(false);
      };
      waits.add(cancel);
    });
  }

  /** A hard reload for a stale client, at most once a minute so a server loop cannot spin. */
  function reloadStale(): void {
    const storage = sessionStore(window);
    const last = Number(storage?.getItem(RELOAD_KEY) ?? "0");
    if (now() - last < RELOAD_GUARD_MS) {
      store.setNotice(genericError());
      return;
    }
    storage?.setItem(RELOAD_KEY, String(now()));
    window.location.reload();
  }

  async function runEffects(effects: readonly unknown[], context: ActionContext): Promise<boolean> {
    if (effects.length === 0) return true;
    // An action result has been checked, so the validator is here (a failure to load it fails the answer).
    const contract = validator.current() ?? (await validator.load().catch(() => null));
    if (contract === null) return false;
    for (const [index, raw] of effects.entries()) {
      const action = contract.parseAction(raw, `/effects/${index}`);
      if (action === null) return false;
      if (!(await runtime.run(action, context))) return false;
    }
    return true;
  }

  async function apply(answer: Answer, origin: Origin): Promise<boolean> {
    const formId = origin.kind === "action" ? origin.formId : undefined;
    switch (answer.kind) {
      case "envelope": {
        const { envelope, receivedAt, check } = answer;
        cancelWaits();
        if (check === undefined) {
          show(envelope, receivedAt);
          return true;
        }
        // The page's envelope, not checked yet: shown now; the check decides whether it stays.
        try {
          show(envelope, receivedAt);
        } catch {
          return apply(await check, origin);
        }
        void confirm(store.get().screen?.key, check);
        return true;
      }
      case "reload":
        reloadStale();
        return false;
      case "failure":
        if (origin.kind === "screen") store.setNotice(answer.message);
        else store.setErrors({}, { id: formId, message: answer.message });
        return false;
      case "result": {
        const { effects, errors, reload } = answer.result;
        if (reload === true) {
          reloadStale();
          return false;
        }
        const fields = errors?.fields ?? {};
        if (errors?.form !== undefined || Object.keys(fields).length > 0) {
          const form = errors?.form;
          store.setErrors(fields, form === undefined ? undefined : { id: formId, message: form });
          const first = formId === undefined ? undefined : forms.fields(formId).find((f) => Object.hasOwn(fields, f.id));
          first?.element()?.focus();
        }
        const ran = await runEffects(effects ?? [], { formId });
        return errors === undefined && ran;
      }
    }
  }

  function show(envelope: Envelope, receivedAt: number): void {
    store.showScreen(envelope, receivedAt);
    applyTheme(window.document, envelope.meta.brand);
    const title = envelope.screen.title;
    applyTitle(window.document, typeof title === "string" ? title : undefined, envelope.meta.brand.name);
    sessionStore(window)?.removeItem(RELOAD_KEY);
  }

  /**
   * Acts on the check of a screen shown before the validator arrived, if it is still the one
   * shown. A valid envelope stands; when a node of it does not parse, the checked envelope takes
   * its place, so that the screen is drawn again with every node parsed (the invalid one gives way
   * to its fallback, as on any screen). When every node parses, drawing it again would change
   * nothing, and it is left as drawn. An invalid envelope, or a validator that did not load,
   * leaves the error fallback a bad envelope leaves.
   */
  async function confirm(key: number | undefined, check: Promise<Answer>): Promise<void> {
    const checked = await check;
    const shown = store.get().screen;
    if (key === undefined || shown?.key !== key) return;
    if (checked.kind !== "envelope") {
      store.failScreen(checked.kind === "failure" ? checked.message : genericError());
      return;
    }
    const contract = validator.current();
    const { screen, overlays = {} } = shown.envelope;
    const parses =
      contract !== null &&
      contract.treeParses(screen, "/screen") &&
      Object.entries(overlays).every(([id, raw]) => contract.treeParses(raw, `/overlays/${escapeToken(id)}`));
    if (!parses) store.checkScreen(checked.envelope);
  }

  const router = createRouter({ window, api, store, apply });

  const host: RunnerHost = {
    window,
    store,
    api,
    forms,
    router,
    apply,
    wait,
    run: (action, context) => runAction(action, context, host),
  };

  const runtime: Runtime = {
    window,
    store,
    api,
    forms,
    router,
    validator,
    run: (action, context = {}) => runAction(action, context, host),
    apply,
    start: () => {
      // Fetched now, beside the first screen, which does not wait for it.
      validator.load().catch(() => undefined);
      return router.start();
    },
    stop: () => {
      cancelWaits();
      router.stop();
    },
  };
  return runtime;
}
