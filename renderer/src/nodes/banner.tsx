import { type NodeProps, NodeList } from "../runtime/hooks";
import { cx } from "./class-names";
import "./banner.css";

/** A notice area; `sticky: bottom` keeps it at the bottom of the viewport while the page scrolls. */
export function Banner({ node, pointer }: NodeProps<"banner">) {
  return (
    <div
      className={cx("banner", `tone-${node.tone ?? "info"}`, node.sticky !== undefined && `banner--sticky-${node.sticky}`)}
    >
      {node.title !== undefined && <p className="banner__title">{node.title}</p>}
      {node.text !== undefined && <p className="banner__text">{node.text}</p>}
      {node.children !== undefined && node.children.length > 0 && (
        <div className="banner__children">
          <NodeList nodes={node.children} pointer={`${pointer}/children`} />
        </div>
      )}
    </div>
  );
}
