// The only door from node components into the runtime: hooks that read the store, run actions,
// bind inputs and tick clocks, plus the components that render child nodes (and the error
// boundary that isolates them).
import {
  type MouseEvent,
  type ReactNode,
  type RefObject,
  useCallback,
  useContext,
  useEffect,
  useLayoutEffect,
  useReducer,
  useRef,
  useState,
  useSyncExternalStore,
} from "react";
import type { Action } from "../schema/action";
import type { Condition } from "../schema/condition";
import type { Brand } from "../schema/envelope";
import type { Rule } from "../schema/rule";
import { type LinkTarget, linkFor } from "./actions";
import { parseTime } from "./clock";
import { evaluate } from "./conditions";
import { EngineContext, FormContext, OverlayContext } from "./context";
import type { Runtime } from "./runtime";
import { getPointer } from "./pointer";
import type { ViewState } from "./store";

export type { NodeProps, Registry } from "./context";
export { NodeList, NodeView } from "./render";
export { ErrorBoundary } from "./error-boundary";
export { normaliseHref } from "./href";
export { takeHeldSubmit } from "./prerendered";
/** The renderer's own words (the brand's renderer.* copy from the page shell); see copy.ts. */
export { t } from "./copy";

function useEngine(): Runtime {
  const runtime = useContext(EngineContext);
  if (runtime === null) throw new Error("Glimpse: node rendered outside the runtime");
  return runtime;
}

/** Reads pages of a name_list's names (runtime/api.ts). */
export function useNamePages(): Runtime["api"]["names"] {
  const { api } = useEngine();
  return useCallback((src, page) => api.names(src, page), [api]);
}

/** A value derived from the view state; re-renders only when it changes. */
function useView<T>(select: (view: ViewState) => T): T {
  const { store } = useEngine();
  const snapshot = (): T => select(store.get());
  // The same snapshot while React adopts the server's markup: the store already holds that screen.
  return useSyncExternalStore(store.subscribe, snapshot, snapshot);
}

/** The state value at a JSON Pointer. */
export function useStateValue(pointer: string): unknown {
  return useView((view) => getPointer(view.state, pointer));
}

/** A condition evaluated against the state; an absent one is `fallback`. */
export function useCondition(condition: Condition | undefined, fallback = true): boolean {
  return useView((view) => evaluate(condition, view.state, fallback));
}

/** The id of the form around this node, if any. */
export function useFormId(): string | undefined {
  return useContext(FormContext);
}

/** Puts a subtree inside a form: its inputs submit and clear errors together. */
export function FormScope({ id, children }: { id: string; children: ReactNode }): ReactNode {
  return <FormContext value={id}>{children}</FormContext>;
}

/**
 * Runs an action from this node, with `source` as its element and the form around it (or
 * `ownForm`, for the form node itself).
 */
export function useRun(source: string, ownForm?: string): (action: Action) => void {
  const runtime = useEngine();
  const around = useFormId();
  const formId = ownForm ?? around;
  return useCallback(
    (action: Action) => {
      void runtime.run(action, { formId, source });
    },
    [runtime, formId, source],
  );
}

/** Whether a submit started by `source` is in flight. */
export function useBusy(source: string): boolean {
  return useView((view) => Object.values(view.submitting).includes(source));
}

/** How a node renders an action: a real link when it navigates, else a button. */
export type ActionBinding =
  | { kind: "none" }
  | ({ kind: "link"; onClick: (event: MouseEvent<HTMLAnchorElement>) => void } & LinkTarget)
  | { kind: "button"; busy: boolean; onClick: () => void };

function modified(event: MouseEvent): boolean {
  return event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey;
}

export function useAction(action: Action | undefined, source: string): ActionBinding {
  const run = useRun(source);
  const busy = useBusy(source);
  if (action === undefined) return { kind: "none" };
  const link = linkFor(action);
  if (link !== null) {
    return {
      kind: "link",
      ...link,
      onClick: (event) => {
        // The browser follows native links and modified clicks (a new tab) itself. A download is
        // the runtime's even so: it fetches the file, and says in the app why when there is none
        // (the link followed by the browser would save the error under the file's name).
        if ((link.native && action.type !== "download") || modified(event)) return;
        event.preventDefault();
        run(action);
      },
    };
  }
  return { kind: "button", busy, onClick: () => run(action) };
}

/** What an input needs: its bound value, a setter that clears errors, and its error. */
export interface FieldBinding {
  value: unknown;
  setValue: (value: unknown) => void;
  error: string | undefined;
}

/**
 * Binds an input to the state and registers it with its form while mounted (so while visible):
 * a submit collects, validates and focuses exactly these inputs.
 */
export function useField(
  spec: { id: string; bind: string; rules?: readonly Rule[] | undefined },
  element: RefObject<HTMLElement | null>,
): FieldBinding {
  const runtime = useEngine();
  const formId = useFormId();
  const { id, bind, rules } = spec;
  const value = useStateValue(bind);
  const error = useView((view) => view.fieldErrors[id]);

  // In the commit itself, not after it: from the moment React has put its handlers on the page
  // (adopting the server's markup included), a tap on the form's button must find these fields;
  // passive effects run a frame or more later, and a submit then would send no values at all.
  useLayoutEffect(
    () => runtime.forms.register({ id, bind, rules: rules ?? [], formId, element: () => element.current }),
    [runtime, id, bind, rules, formId, element],
  );

  // A keystroke re-renders its own field at once. The field reads the state through a
  // subscription React makes a task after the commit; a keystroke before it changes the state
  // without rendering, and React's controlled input then puts back the value last rendered: the
  // first letter typed after the form appeared (or was adopted from the server) was lost.
  const [, rendered] = useReducer((count: number) => count + 1, 0);
  const setValue = useCallback(
    (next: unknown) => {
      runtime.store.setValue(bind, next);
      rendered();
      // An edit clears the errors of its whole form (sign-in clears both fields on any edit).
      const ids = formId === undefined ? [id] : runtime.forms.fields(formId).map((field) => field.id);
      runtime.store.clearErrors(ids.includes(id) ? ids : [...ids, id], formId);
    },
    [runtime, bind, formId, id],
  );
  return { value, setValue, error };
}

/**
 * Registers a file input with the runtime (so an upload action can find its file) and returns
 * its error and a way to choose a file, which clears that error.
 */
export function useFileInput(
  spec: { id: string; maxBytes?: number | undefined; requiredMessage: string; tooLargeMessage?: string | undefined },
  element: RefObject<HTMLElement | null>,
): { error: string | undefined; choose: (file: File | null) => void } {
  const runtime = useEngine();
  const { id, maxBytes, requiredMessage, tooLargeMessage } = spec;
  const error = useView((view) => view.fieldErrors[id]);
  const chosen = useRef<File | null>(null);
  // In the commit, as fields are (useField).
  useLayoutEffect(
    () =>
      runtime.forms.registerFile({
        id,
        maxBytes,
        requiredMessage,
        tooLargeMessage,
        element: () => element.current,
        get file() {
          return chosen.current;
        },
        set file(file: File | null) {
          chosen.current = file;
        },
      }),
    [runtime, id, maxBytes, requiredMessage, tooLargeMessage, element],
  );
  const choose = useCallback(
    (file: File | null) => {
      chosen.current = file;
      runtime.store.clearErrors([id], undefined);
    },
    [runtime, id],
  );
  return { error, choose };
}

/** The error message of a form, if any. */
export function useFormError(formId: string): string | undefined {
  return useView((view) => view.formErrors[formId]);
}

/** Whether an overlay is open (for a menu button's aria-expanded). */
export function useOverlayOpen(id: string): boolean {
  return useView((view) => view.overlays.includes(id));
}

/** The overlay this node renders in, and a way to dismiss it (running its onClose). */
export function useOverlay(): { id: string; top: boolean; dismiss: (onClose?: Action) => void } | null {
  const runtime = useEngine();
  const scope = useContext(OverlayContext);
  const dismiss = useCallback(
    (onClose?: Action) => {
      if (scope === null) return;
      void runtime.run({ type: "close_overlay", id: scope.id }).then(() => {
        if (onClose !== undefined) void runtime.run(onClose);
      });
    },
    [runtime, scope],
  );
  return scope === null ? null : { ...scope, dismiss };
}

/** The brand of the current screen (name, tagline, logo, support address). */
export function useBrand(): Brand | undefined {
  return useView((view) => view.screen?.envelope.meta.brand);
}

/**
 * Milliseconds left until `endsAt` by the server's clock (meta.serverNow against Date.now at
 * receipt), ticking every second; NaN for an unreadable date.
 */
export function useRemaining(endsAt: string): number {
  const offset = useView((view) => view.screen?.clockOffset ?? 0);
  const end = parseTime(endsAt);
  const [now, setNow] = useState(() => Date.now());
  const remaining = end - (now + offset);
  const running = remaining > 0;
  useEffect(() => {
    if (!running) return undefined;
    const timer = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(timer);
  }, [running]);
  return remaining;
}
