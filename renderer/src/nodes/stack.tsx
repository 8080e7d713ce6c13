import { type NodeProps, NodeList } from "../runtime/hooks";
import { cx } from "./class-names";
import "./layout.css";

/** A vertical layout; a tone paints it as a coloured area. */
export function Stack({ node, pointer }: NodeProps<"stack">) {
  return (
    <div
      className={cx(
        "stack",
        `gap-${node.gap ?? "md"}`,
        `align-${node.align ?? "stretch"}`,
        node.tone !== undefined && `stack--tone tone-${node.tone}`,
        node.padded === true && "stack--padded",
      )}
    >
      <NodeList nodes={node.children} pointer={`${pointer}/children`} />
    </div>
  );
}
