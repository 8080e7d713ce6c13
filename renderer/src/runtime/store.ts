// The view store: the current screen, its state (seeded from envelope.state), errors kept beside
// the state, the open overlays, in-flight submits, and the boot/failure flags. Updates go
// through immer; React reads it with useSyncExternalStore.
import { type Draft, produce } from "immer";
import type { Envelope } from "../schema/envelope";
import { parseTime } from "./clock";
import { setPointer } from "./pointer";

/** A screen as shown: the envelope, a key that changes with every new screen, the clock skew. */
export interface ShownScreen {
  envelope: Envelope;
  key: number;
  /** serverNow minus the client clock at receipt, in ms: add it to Date.now() for server time. */
  clockOffset: number;
}

export interface ViewState {
  screen: ShownScreen | null;
  state: Record<string, unknown>;
  /** Field errors by input id. */
  fieldErrors: Record<string, string>;
  /** Form errors by form id. */
  formErrors: Record<string, string>;
  /** A message about the page as a whole: a failed fetch or an error with no form to show it. */
  notice: string | null;
  /** Open overlay ids, bottom first. */
  overlays: string[];
  /** In-flight submits: server action name → the element that started it. */
  submitting: Record<string, string>;
  /** The full-screen loader, while booting or signing in from a secret link. */
  loading: boolean;
}

export function initialViewState(): ViewState {
  return {
    screen: null,
    state: {},
    fieldErrors: {},
    formErrors: {},
    notice: null,
    overlays: [],
    submitting: {},
    loading: true,
  };
}

export interface Store {
  get: () => ViewState;
  subscribe: (listener: () => void) => () => void;
  update(recipe: (draft: Draft<ViewState>) => void): void;
  /** Shows a new screen: its state, its initially open overlays, no errors. */
  showScreen(envelope: Envelope, receivedAt: number): void;
  /** Puts the checked envelope in the place of the unchecked one shown, keeping the state. */
  checkScreen(envelope: Envelope): void;
  /** Takes the screen down for the error fallback, with the message (a bad envelope's notice). */
  failScreen(message: string): void;
  setValue(pointer: string, value: unknown): void;
  /** Clears the errors of the given inputs and of the form. */
  clearErrors(inputIds: readonly string[], formId?: string): void;
  setErrors(fields: Record<string, string>, form?: { id: string | undefined; message: string }): void;
  setNotice(message: string | null): void;
  openOverlay(id: string): void;
  /** Closes `id`, or the topmost overlay; returns the id closed. */
  closeOverlay(id?: string): string | undefined;
  /** Marks a submit in flight; false when the same server action already is. */
  beginSubmit(action: string, source: string): boolean;
  endSubmit(action: string): void;
  setLoading(loading: boolean): void;
}

function without(record: Record<string, string>, keys: readonly string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(record).filter(([key]) => !keys.includes(key)));
}

export function createStore(initial: ViewState = initialViewState()): Store {
  let current = initial;
  const listeners = new Set<() => void>();
  let screens = 0;

  const update = (recipe: (draft: Draft<ViewState>) => void): void => {
    const next = produce(current, recipe);
    if (next === current) return;
    current = next;
    for (const listener of listeners) listener();
  };

  return {
    get: () => current,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    update,
    showScreen(envelope, receivedAt) {
      screens += 1;
      const key = screens;
      const overlays = envelope.overlays ?? {};
      update((draft) => {
        draft.screen = {
          envelope,
          key,
          // No server time at all (neither Date nor meta.serverNow): trust the client's clock.
          clockOffset: envelope.meta.serverNow === undefined ? 0 : parseTime(envelope.meta.serverNow) - receivedAt,
        };
        draft.state = envelope.state ?? {};
        draft.fieldErrors = {};
        draft.formErrors = {};
        draft.notice = null;
        draft.overlays = (envelope.open ?? []).filter((id) => Object.hasOwn(overlays, id));
        draft.loading = false;
      });
    },
    checkScreen(envelope) {
      update((draft) => {
        if (draft.screen !== null) draft.screen.envelope = envelope;
      });
    },
    failScreen(message) {
      update((draft) => {
        draft.screen = null;
        draft.overlays = [];
        draft.notice = message;
        draft.loading = false;
      });
    },
    setValue(pointer, value) {
      update((draft) => {
        setPointer(draft.state, pointer, value);
      });
    },
    clearErrors(inputIds, formId) {
      const { fieldErrors, formErrors } = current;
      const hasField = inputIds.some((id) => Object.hasOwn(fieldErrors, id));
      const hasForm = formId !== undefined && Object.hasOwn(formErrors, formId);
      if (!hasField && !hasForm) return;
      update((draft) => {
        draft.fieldErrors = without(draft.fieldErrors, inputIds);
        if (formId !== undefined) draft.formErrors = without(draft.formErrors, [formId]);
      });
    },
    setErrors(fields, form) {
      update((draft) => {
        Object.assign(draft.fieldErrors, fields);
        if (form === undefined) return;
        if (form.id === undefined) draft.notice = form.message;
        else draft.formErrors[form.id] = form.message;
      });
    },
    setNotice(message) {
      update((draft) => {
        draft.notice = message;
        if (message !== null) draft.loading = false;
      });
    },
    openOverlay(id) {
      update((draft) => {
        draft.overlays = [...draft.overlays.filter((open) => open !== id), id];
      });
    },
    closeOverlay(id) {
      const closing = id ?? current.overlays.at(-1);
      if (closing === undefined || !current.overlays.includes(closing)) return undefined;
      update((draft) => {
        draft.overlays = draft.overlays.filter((open) => open !== closing);
      });
      return closing;
    },
    beginSubmit(action, source) {
      if (Object.hasOwn(current.submitting, action)) return false;
      update((draft) => {
        draft.submitting[action] = source;
      });
      return true;
    },
    endSubmit(action) {
      update((draft) => {
        draft.submitting = without(draft.submitting, [action]);
      });
    },
    setLoading(loading) {
      update((draft) => {
        draft.loading = loading;
      });
    },
  };
}
