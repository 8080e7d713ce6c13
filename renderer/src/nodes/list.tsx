import { type NodeProps, NodeView } from "../runtime/hooks";
import { cx } from "./class-names";
import "./list.css";

/** A line of text in a list sits off the panel's edges: list items, links and cards pad themselves. */
function padded(raw: unknown): boolean {
  return typeof raw === "object" && raw !== null && "type" in raw && raw.type === "text";
}

/** A list of nodes (usually list items); `label` names it for assistive technology. */
export function List({ node, pointer }: NodeProps<"list">) {
  const Tag = node.ordered === true ? "ol" : "ul";
  return (
    <Tag className={cx("list", node.divided === true && "list--divided")} aria-label={node.label}>
      {node.children.map((raw, index) => (
        <li key={index} className={cx("list__entry", padded(raw) && "list__entry--padded")}>
          <NodeView raw={raw} pointer={`${pointer}/children/${index}`} />
        </li>
      ))}
    </Tag>
  );
}
