import { type NodeProps, NodeList } from "../runtime/hooks";
import "./split.css";

/**
 * Columns side by side where the split itself is wide enough (a desk), stacked on a phone. The
 * split measures its own width, not the window's, so it stays stacked in the phone column.
 */
export function Split({ node, pointer }: NodeProps<"split">) {
  return (
    <div className="split">
      <div className={`split__columns gap-${node.gap ?? "lg"}`}>
        <NodeList nodes={node.children} pointer={`${pointer}/children`} />
      </div>
    </div>
  );
}
