// The page may arrive with its first screen already drawn by the server (engine/ui/prerender),
// painted before this bundle loaded; React then adopts that markup (main.tsx hydrates it). What
// the reader did with it meanwhile is kept: text typed into a field goes into the state the field
// is bound to, a form sent (Enter, or its button) before the app could send it is sent by the
// app once it has mounted, and a button pressed then (the header's menu) is pressed again for the
// app once it has mounted: the server's buttons have no handlers of their own.
import type { Store } from "./store";

/** The server's markup until the app has mounted over it. */
interface ServerMarkup {
  inputs: HTMLInputElement[];
  forms: HTMLFormElement[];
  /** The app's store, once it has one: text typed from then on is written into it directly. */
  store: Store | null;
  /** Index among `forms` of the one the reader sent before the app mounted. */
  sent: number | null;
  /** The last button (not a form's submit) the reader pressed before the app mounted. */
  pressed: HTMLElement | null;
  stop: () => void;
}

let markup: ServerMarkup | null = null;

/**
 * The server's button `target` is in, when it is one the app answers itself: a form's submit is
 * held as the form's submit, and a link is followed by the browser (the server draws its address).
 */
function pressedButton(root: HTMLElement, target: EventTarget | null): HTMLElement | null {
  if (!(target instanceof Element)) return null;
  const button = target.closest<HTMLElement>("button, [role='button']");
  if (button === null || !root.contains(button)) return null;
  if (button instanceof HTMLButtonElement && button.type === "submit" && button.form !== null) return null;
  return button;
}

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
    // Nor by React while it adopts the markup: it would hydrate the form at once to answer the
    // event and send it before the form's fields have registered, with no values at all. The
    // form sends it from its mount effect instead, which runs after its fields' effects.
    event.stopPropagation();
    watched.sent = index;
  };
  const onInput = (event: Event): void => {
    // Only the server's fields are bound ones until the app's first screen has mounted.
    const input = event.target as HTMLInputElement;
    const bind = input.dataset.bind;
    if (watched.store !== null && bind !== undefined) watched.store.setValue(bind, input.value);
  };
  const onClick = (event: MouseEvent): void => {
    // Only until React adopts the markup (takeOverServerMarkup): a press while it adopts is
    // React's to replay, once its handlers are on the element.
    if (watched.store !== null) return;
    const pressed = pressedButton(root, event.target);
    if (pressed !== null) watched.pressed = pressed;
  };
  const watched: ServerMarkup = {
    inputs: boundInputs(root),
    forms: [...root.querySelectorAll("form")],
    store: null,
    sent: null,
    pressed: null,
    stop: () => {
      document.removeEventListener("submit", onSubmit, true);
      document.removeEventListener("input", onInput, true);
      document.removeEventListener("click", onClick, true);
    },
  };
  document.addEventListener("submit", onSubmit, true);
  document.addEventListener("input", onInput, true);
  document.addEventListener("click", onClick, true);
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
  const watched = markup;
  if (watched === null) return;
  watched.stop();
  markup = null;
  // Pressed again now that the app's handler is on it; a button the app drew anew (its markup
  // differed from the server's) is not the one pressed, and is left alone.
  const pressed = watched.pressed;
  if (pressed !== null && pressed.isConnected) pressed.click();
}
