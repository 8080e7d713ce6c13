import { type NodeProps, NodeList } from "../runtime/hooks";
import { cx } from "./class-names";
import "./layout.css";

/** A horizontal layout. */
export function Row({ node, pointer }: NodeProps<"row">) {
  return (
    <div
      className={cx(
        "row",
        `gap-${node.gap ?? "sm"}`,
        `align-${node.align ?? "center"}`,
        `justify-${node.justify ?? "start"}`,
        node.wrap === true && "row--wrap",
      )}
    >
      <NodeList nodes={node.children} pointer={`${pointer}/children`} />
    </div>
  );
}
