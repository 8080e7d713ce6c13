import type { NodeProps } from "../runtime/hooks";
import "./badge.css";

/** A short status label. */
export function Badge({ node }: NodeProps<"badge">) {
  return <span className={`badge tone-${node.tone ?? "neutral"}`}>{node.label}</span>;
}
