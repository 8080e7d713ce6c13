// The action runner: one handler per action type. Each resolves to whether it succeeded, so a
// `sequence` stops at the first that fails.
import type { Action, ActionOf, ActionType } from "../schema/action";
import type { Answer, Api } from "./api";
import type { FieldSpec, Forms } from "./forms";
import { isOpenable } from "./href";
import { getPointer } from "./pointer";
import { isLocalPath, type Origin, type Router } from "./router";
import { validate } from "./rules";
import type { Store } from "./store";

/** Where an action was started: the form it sits in and the element (by node pointer). */
export interface ActionContext {
  formId?: string | undefined;
  source?: string | undefined;
}

export interface RunnerHost {
  window: Window;
  store: Store;
  api: Api;
  forms: Forms;
  router: Router;
  apply(answer: Answer, origin: Origin): Promise<boolean>;
  /** Resolves true after `ms`, or false as soon as the screen changes. */
  wait(ms: number): Promise<boolean>;
  run(action: Action, context: ActionContext): Promise<boolean>;
}

type Handler<K extends ActionType> = (action: ActionOf<K>, context: ActionContext, host: RunnerHost) => Promise<boolean>;


/** Field types whose value is the text typed into them. */
const TYPED = new Set(["text", "email", "password", "search", "tel", "url", "number"]);

/**
 * The values sent are what the fields show: text a field holds that its state does not (typed
 * while React was adopting the server's markup, before its handlers were attached) is taken
 * into the state first (issue #21).
 */
function takeTypedText(fields: readonly FieldSpec[], store: Store): void {
  const state = store.get().state;
  for (const field of fields) {
    const element = field.element();
    const typed =
      element instanceof HTMLTextAreaElement || (element instanceof HTMLInputElement && TYPED.has(element.type));
    if (!typed) continue;
    const held = getPointer(state, field.bind);
    const shown = typeof held === "string" || typeof held === "number" ? String(held) : "";
    if (element.value !== shown) store.setValue(field.bind, element.value);
  }
}

/** Collects, validates and posts a form (protocol.md, Actions). */
async function submit(action: ActionOf<"submit">, context: ActionContext, host: RunnerHost): Promise<boolean> {
  const { store, forms, api, router } = host;
  const formId = action.form ?? context.formId;
  if (!store.beginSubmit(action.action, context.source ?? formId ?? action.action)) return false;
  try {
    const fields = formId === undefined ? [] : forms.fields(formId);
    takeTypedText(fields, store);
    const state = store.get().state;
    store.clearErrors(
      fields.map((field) => field.id),
      formId,
    );
    if (action.validate !== "none") {
      const errors: Record<string, string> = {};
      for (const field of fields) {
        const [message] = validate(field.rules, getPointer(state, field.bind), state);
        if (message !== undefined) errors[field.id] = message;
      }
      const invalid = fields.find((field) => Object.hasOwn(errors, field.id));
      if (invalid !== undefined) {
        store.setErrors(errors);
        invalid.element()?.focus();
        return false;
      }
    }
    const values: Record<string, unknown> = {};
    for (const field of fields) values[field.id] = getPointer(state, field.bind) ?? null;
    for (const pointer of action.include ?? []) values[pointer] = getPointer(state, pointer) ?? null;
    const answer = await api.action(action.action, values, router.path());
    return await host.apply(answer, { kind: "action", formId });
  } finally {
    store.endSubmit(action.action);
  }
}

/**
 * Checks the file chosen in a file input (present, not too large) and posts it. Errors show
 * under the input, like a field's.
 */
async function upload(action: ActionOf<"upload">, context: ActionContext, host: RunnerHost): Promise<boolean> {
  const { store, forms, api } = host;
  const input = forms.file(action.input);
  if (input === undefined) {
    console.error(`Glimpse: no file input ${JSON.stringify(action.input)} on this screen`);
    return false;
  }
  store.clearErrors([input.id], undefined);
  const problem =
    input.file === null
      ? input.requiredMessage
      : input.maxBytes !== undefined && input.file.size > input.maxBytes
        ? (input.tooLargeMessage ?? input.requiredMessage)
        : undefined;
  if (problem !== undefined || input.file === null) {
    store.setErrors({ [input.id]: problem ?? input.requiredMessage });
    input.element()?.focus();
    return false;
  }
  if (!store.beginSubmit(action.action, context.source ?? action.input)) return false;
  try {
    const answer = await api.upload(action.action, input.file);
    return await host.apply(answer, { kind: "action", formId: context.formId });
  } finally {
    store.endSubmit(action.action);
  }
}

/** How long a downloaded file's object URL is kept for the browser to save it. */
const DOWNLOAD_URL_MS = 60_000;

/**
 * Fetches a file and saves it under its name. A file the server cannot give (not bought, not
 * ready, signed out, offline) is not saved: the reason shows in the app's notice instead, so an
 * error's body is never saved under the file's name (issue #31).
 */
async function download(action: ActionOf<"download">, _context: ActionContext, host: RunnerHost): Promise<boolean> {
  if (!isLocalPath(action.url)) return false;
  const answer = await host.api.file(action.url);
  if (answer.kind === "failure") {
    host.store.setNotice(answer.message);
    return false;
  }
  const { document } = host.window;
  const href = URL.createObjectURL(answer.blob);
  const anchor = document.createElement("a");
  anchor.href = href;
  anchor.download = action.filename ?? "";
  anchor.dataset.router = "off";
  anchor.hidden = true;
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
  host.window.setTimeout(() => URL.revokeObjectURL(href), DOWNLOAD_URL_MS);
  return true;
}

/** Every action type's handler. */
export const HANDLERS = {
  navigate: (action, _context, host) => host.router.navigate(action.to),
  replace: (action, _context, host) => host.router.navigate(action.to, { replace: true }),
  back: (action, _context, host) => host.router.back(action.fallback),
  open_url: (action, _context, host) => {
    if (!isOpenable(action.url)) return Promise.resolve(false);
    if (action.newWindow === true) host.window.open(action.url, "_blank", "noopener,noreferrer");
    else host.window.location.assign(action.url);
    return Promise.resolve(true);
  },
  submit,
  upload,
  open_overlay: (action, _context, host) => {
    const overlays = host.store.get().screen?.envelope.overlays ?? {};
    if (!Object.hasOwn(overlays, action.id)) {
      console.error(`Glimpse: no overlay ${JSON.stringify(action.id)} on this screen`);
      return Promise.resolve(false);
    }
    host.store.openOverlay(action.id);
    return Promise.resolve(true);
  },
  close_overlay: (action, _context, host) => {
    host.store.closeOverlay(action.id);
    return Promise.resolve(true);
  },
  set_state: (action, _context, host) => {
    host.store.setValue(action.path, action.value);
    return Promise.resolve(true);
  },
  after: async (action, context, host) => {
    if (!(await host.wait(action.ms))) return false;
    return host.run(action.then, context);
  },
  download,
  sign_out: async (_action, _context, host) => {
    const answer = await host.api.action("session.sign_out", {}, host.router.path());
    return host.apply(answer, { kind: "action" });
  },
  track: (action, _context, host) => {
    // Fire and forget; keepalive lets it finish when the next action leaves the page.
    void host.api.action("event.track", { event: action.event, props: action.props ?? {} }, host.router.path(), {
      keepalive: true,
    });
    return Promise.resolve(true);
  },
  reload: (_action, _context, host) => {
    host.window.location.reload();
    return Promise.resolve(true);
  },
  refresh: (_action, _context, host) => host.router.refresh(),
  sequence: async (action, context, host) => {
    for (const step of action.actions) {
      if (!(await host.run(step, context))) return false;
    }
    return true;
  },
} satisfies { [K in ActionType]: Handler<K> };

/** Runs one action with the handler of its type. */
export function runAction(action: Action, context: ActionContext, host: RunnerHost): Promise<boolean> {
  const handler = HANDLERS[action.type] as Handler<ActionType>;
  return handler(action, context, host);
}

/** How an action is rendered when it navigates: a real link. */
export interface LinkTarget {
  href: string;
  target?: "_blank";
  rel?: string;
  download?: string;
  /** The browser follows it itself (no client-side routing). */
  native: boolean;
}

/** The link for an action that navigates (navigate, replace, open_url, download); null otherwise. */
export function linkFor(action: Action): LinkTarget | null {
  switch (action.type) {
    case "navigate":
    case "replace":
      return isLocalPath(action.to) ? { href: action.to, native: false } : null;
    case "open_url":
      if (!isOpenable(action.url)) return null;
      return action.newWindow === true
        ? { href: action.url, target: "_blank", rel: "noopener noreferrer", native: true }
        : { href: action.url, native: true };
    case "download":
      return isLocalPath(action.url) ? { href: action.url, download: action.filename ?? "", native: true } : null;
    default:
      return null;
  }
}
