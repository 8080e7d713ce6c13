// The page may arrive with its first screen already drawn by the server (engine/ui/prerender),
// painted before this bundle loaded. React replaces that markup when it mounts; what the reader
// did with it meanwhile is carried over: text typed into a field, the field that had focus, and
// a form sent (Enter, or its button) before the app could send it.
import type { Store } from "./store";

/** The index among the server's forms of the one the reader sent before the app mounted. */
let heldSubmit: number | null = null;

/**
 * Keeps the server's forms from being sent by the browser itself (boot.ts calls it at once): the
 * app sends forms as JSON; a native submit would post the fields to the page's own address. The
 * reader's submit is held and made again once the app has drawn the form.
 */
export function holdSubmits(root: HTMLElement): void {
  if (!root.hasAttribute("data-prerendered")) return;
  const forms = [...root.querySelectorAll("form")];
  root.ownerDocument.addEventListener(
    "submit",
    (event) => {
      const index = forms.indexOf(event.target as HTMLFormElement);
      if (index < 0) return;
      event.preventDefault();
      heldSubmit = index;
    },
    true,
  );
}

/** What the reader left in the server's markup. */
export interface Handover {
  /** Bound state pointer → the text typed, for each field whose text is no longer the markup's. */
  values: [bind: string, value: string][];
  focus: { bind: string; start: number | null; end: number | null } | null;
}

const NOTHING: Handover = { values: [], focus: null };

function boundInputs(root: ParentNode): HTMLInputElement[] {
  return [...root.querySelectorAll<HTMLInputElement>("input[data-bind]")];
}

/** Reads the typed text and the focus from the server's markup in `root` (none when not prerendered). */
export function readPrerendered(root: HTMLElement): Handover {
  if (!root.hasAttribute("data-prerendered")) return NOTHING;
  const inputs = boundInputs(root);
  const values = inputs
    .filter((input) => input.value !== input.defaultValue)
    .map((input): [string, string] => [input.dataset.bind ?? "", input.value]);
  const focused = inputs.find((input) => input === root.ownerDocument.activeElement);
  const focus =
    focused === undefined
      ? null
      : { bind: focused.dataset.bind ?? "", start: focused.selectionStart, end: focused.selectionEnd };
  return { values, focus };
}

/**
 * Puts the handover into the app: the typed text into the state as soon as the first screen is
 * in the store (before React draws it), the focus onto the new field once React has drawn it.
 */
export function carryOver(handover: Handover, store: Store, root: HTMLElement): void {
  if (handover.values.length > 0) {
    const unsubscribe = store.subscribe(() => {
      if (store.get().screen === null) return;
      unsubscribe();
      for (const [bind, value] of handover.values) store.setValue(bind, value);
    });
  }
  if (!root.hasAttribute("data-prerendered")) return;
  const serverMain = root.querySelector("main");
  const observer = new MutationObserver(() => {
    const main = root.querySelector("main");
    // React has committed its first screen once the server's <main> is gone and its own is in.
    if (main === null || main === serverMain) return;
    observer.disconnect();
    mounted(handover, root);
  });
  observer.observe(root, { childList: true, subtree: true });
}

/** After the app's first commit: the focus back on its field. */
function mounted(handover: Handover, root: HTMLElement): void {
  const focus = handover.focus;
  const document = root.ownerDocument;
  const active = document.activeElement;
  // Unless the reader has moved on (clicked elsewhere) while the app mounted.
  const free = active === null || active === document.body || !active.isConnected;
  if (focus !== null && free) {
    const drawn = boundInputs(root).find((input) => input.dataset.bind === focus.bind);
    drawn?.focus();
    if (drawn !== undefined && focus.start !== null && focus.end !== null) {
      drawn.setSelectionRange(focus.start, focus.end);
    }
  }
}

/**
 * Whether `form` (drawn by the app) is the one the reader sent before the app mounted; the
 * answer is given once. The form asks once its fields are registered (its mount effect runs
 * after theirs), so the submit it then makes collects them.
 */
export function takeHeldSubmit(form: HTMLFormElement): boolean {
  if (heldSubmit === null) return false;
  const root = form.closest("#root");
  if (root === null || [...root.querySelectorAll("form")].indexOf(form) !== heldSubmit) return false;
  heldSubmit = null;
  return true;
}
