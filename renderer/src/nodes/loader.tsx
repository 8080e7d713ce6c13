import type { NodeProps } from "../runtime/hooks";
import { cx } from "./class-names";
import "./loader.css";

/** A spinner with its label, announced as a status; fullscreen covers the page. */
export function Spinner({ label, fullscreen = false }: { label: string; fullscreen?: boolean | undefined }) {
  return (
    <div role="status" aria-label={label} className={cx("loader", fullscreen && "loader--fullscreen")}>
      <span className="spinner spinner--large" aria-hidden="true" />
      <span className="loader__label">{label}</span>
    </div>
  );
}

export function Loader({ node }: NodeProps<"loader">) {
  return <Spinner label={node.label} fullscreen={node.fullscreen} />;
}
