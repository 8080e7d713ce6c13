import { type NodeProps, NodeView } from "../runtime/hooks";
import { cx } from "./class-names";
import "./list.css";

/** A list of nodes (usually list items); `label` names it for assistive technology. */
export function List({ node, pointer }: NodeProps<"list">) {
  const Tag = node.ordered === true ? "ol" : "ul";
  return (
    <Tag className={cx("list", node.divided === true && "list--divided")} aria-label={node.label}>
      {node.children.map((raw, index) => (
        <li key={index} className="list__entry">
          <NodeView raw={raw} pointer={`${pointer}/children/${index}`} />
        </li>
      ))}
    </Tag>
  );
}
