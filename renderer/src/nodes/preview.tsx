import { type MouseEvent, type SyntheticEvent, useEffect, useRef } from "react";
import { type NodeProps, NodeList, NodeView, useBusy, useRun, useStateValue } from "../runtime/hooks";
import "./preview.css";

/** How long typing must pause before the preview asks for a new tree. */
export const PREVIEW_PAUSE_MS = 400;

/** A picture of a screen: its links and buttons would leave the page being edited. */
function stop(event: SyntheticEvent | MouseEvent): void {
  event.preventDefault();
  event.stopPropagation();
}

/**
 * A live preview in a phone-width frame. It shows the tree the server composed at `bind` (the
 * node's children until there is one) and, once the state at `watch` has changed and stayed still
 * for a moment, runs `action`, whose answer sets a new tree at `bind`. One request at a time: a
 * change made while one is in flight is sent when it returns.
 */
export function Preview({ node, pointer }: NodeProps<"preview">) {
  const watched = useStateValue(node.watch);
  const tree = useStateValue(node.bind);
  const run = useRun(pointer);
  const busy = useBusy(pointer);
  const sent = useRef(watched);
  const { action } = node;

  useEffect(() => {
    if (busy || Object.is(watched, sent.current)) return undefined;
    const timer = window.setTimeout(() => {
      sent.current = watched;
      run(action);
    }, PREVIEW_PAUSE_MS);
    return () => window.clearTimeout(timer);
  }, [watched, busy, run, action]);

  return (
    <section className="preview" aria-label={node.label} aria-busy={busy || undefined}>
      <div className="preview__frame" onClickCapture={stop} onSubmitCapture={stop}>
        <div className="preview__content">
          {tree !== undefined && tree !== null ? (
            <NodeView raw={tree} pointer={`/state${node.bind}`} />
          ) : (
            <NodeList nodes={node.children} pointer={`${pointer}/children`} />
          )}
        </div>
      </div>
    </section>
  );
}
