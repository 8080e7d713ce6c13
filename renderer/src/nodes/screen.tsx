import { useEffect, useRef } from "react";
import { ErrorBoundary, type NodeProps, NodeList, NodeView, useRun } from "../runtime/hooks";
import { cx } from "./class-names";
import "./screen.css";

/**
 * The root of every envelope: header, main content, footer; each child isolated by a boundary.
 * onLoad runs once when the screen arrives (a new screen is a new component instance).
 */
export function Screen({ node, pointer }: NodeProps<"screen">) {
  const layout = node.layout ?? "page";
  const run = useRun(pointer);
  const loaded = useRef(false);
  const { onLoad } = node;
  useEffect(() => {
    if (loaded.current || onLoad === undefined) return;
    loaded.current = true;
    run(onLoad);
  }, [onLoad, run]);
  return (
    <div
      className={cx(
        "screen",
        `screen--${layout}`,
        (node.width === "wide" || node.width === "desk") && "screen--wide",
        node.width === "desk" && "screen--desk",
        node.header !== undefined && "screen--with-header",
      )}
    >
      {node.header !== undefined && (
        <ErrorBoundary>
          <NodeView raw={node.header} pointer={`${pointer}/header`} />
        </ErrorBoundary>
      )}
      <main id="main" className="screen__main" tabIndex={-1}>
        <NodeList nodes={node.children} pointer={`${pointer}/children`} isolate />
      </main>
      {node.footer !== undefined && (
        <ErrorBoundary>
          <NodeView raw={node.footer} pointer={`${pointer}/footer`} />
        </ErrorBoundary>
      )}
    </div>
  );
}
