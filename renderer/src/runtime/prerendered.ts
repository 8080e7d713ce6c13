// The page may arrive with its first screen already drawn by the server (engine/ui/prerender),
// painted before this bundle loaded; React then adopts that markup (main.tsx hydrates it). What
// the reader did with it meanwhile is kept: text typed into a field goes into the state the field
// is bound to, and a form sent (Enter, or its button) before the app could send it is sent by the
// app once it has mounted.
import type { Store } from "./store";

/** The server's markup until the app has mounted over it. */
interface ServerMarkup {
  inputs: HTMLInputElement[];
  forms: HTMLFormElement[];
  /** The app's store, once it has one: text typed from then on is written into it directly. */
  store: Store | null;
  /** Index among `forms` of the one the reader sent before the app mounted. */
  sent: number | null;
  stop: () => void;
}

let markup: ServerMarkup | null = null;

function boundInputs(root: ParentNode): HTMLInputElement[] {
  return [...root.querySelectorAll<HTMLInputElement>("input[data-bind]")];
}

/**
 * Watches the server's markup until the app has mounted over it (boot.ts calls it at once). Its
 * forms are kept from being sent by the browser itself: the app sends forms as JSON, and a native
 * submit would post the fields to the page's own address. The reader's submit is remembered.
 */
export function watchServerMarkup(root: HTMLElement): void {
  if (!root.hasAttribute("data-prerendered")) return;
  const document = root.ownerDocument;
  const onSubmit = (event: Event): void => {
    const index = watched.forms.indexOf(event.target as HTMLFormElement);
    if (index < 0) return;
    event.preventDefault();
    watched.sent = index;
  };
  const onInput = (event: Event): void => {
    // Only the server's fields are bound ones until the app's first screen has mounted.
    const input = event.target as HTMLInputElement;
    const bind = input.dataset.bind;
    if (watched.store !== null && bind !== undefined) watched.store.setValue(bind, input.value);
  };
  const watched: ServerMarkup = {
    inputs: boundInputs(root),
    forms: [...root.querySelectorAll("form")],
    store: null,
    sent: null,
    stop: () => {
      document.removeEventListener("submit", onSubmit, true);
      document.removeEventListener("input", onInput, true);
    },
  };
  document.addEventListener("submit", onSubmit, true);
  document.addEventListener("input", onInput, true);
  markup = watched;
}

/**
 * Before React adopts the server's markup (main.tsx): the text typed into the server's fields
 * goes into the state their `data-bind` names, so React's render agrees with what is on screen;
 * text typed while React is adopting it follows the same way. False when the page has no such
 * markup (React then draws the screen itself).
 */
export function takeOverServerMarkup(store: Store): boolean {
  const watched = markup;
  if (watched === null) return false;
  watched.store = store;
  for (const input of watched.inputs) {
    const bind = input.dataset.bind;
    if (bind !== undefined) store.setValue(bind, input.value);
  }
  return true;
}

/**
 * Whether `form` (the server's, adopted by the app) is the one the reader sent before the app
 * mounted; the answer is given once. A form asks from its mount effect, which runs after its
 * fields have registered, so the submit it then makes collects them.
 */
export function takeHeldSubmit(form: HTMLFormElement): boolean {
  const watched = markup;
  if (watched === null || watched.sent === null || watched.forms[watched.sent] !== form) return false;
  watched.sent = null;
  return true;
}

/**
 * The app's first screen has mounted and its effects have run (app.tsx): the server's markup is
 * the app's now. A form sent before and not claimed by then is dropped, never sent on a later
 * screen.
 */
export function endServerMarkup(): void {
  markup?.stop();
  markup = null;
}
