import type { ReactNode } from "react";
import { type NodeProps, NodeView } from "../runtime/hooks";
import { ActionElement } from "./action-element";
import { Glyph } from "./icon";
import "./list.css";

/** A row: leading node, title and subtitle, trailing node; with an action the row is the target. */
export function ListItem({ node, pointer }: NodeProps<"list_item">) {
  const navigates = node.action !== undefined && ["navigate", "replace", "open_url"].includes(node.action.type);
  const content: ReactNode = (
    <>
      {node.leading !== undefined && (
        <span className="list-item__leading">
          <NodeView raw={node.leading} pointer={`${pointer}/leading`} />
        </span>
      )}
      <span className="list-item__text">
        <span className="list-item__title">{node.title}</span>
        {node.subtitle !== undefined && <span className="list-item__subtitle">{node.subtitle}</span>}
      </span>
      {node.trailing !== undefined ? (
        <span className="list-item__trailing">
          <NodeView raw={node.trailing} pointer={`${pointer}/trailing`} />
        </span>
      ) : (
        navigates && <Glyph name="chevron" className="list-item__chevron" />
      )}
    </>
  );
  if (node.action === undefined) return <div className="list-item">{content}</div>;
  return (
    <ActionElement action={node.action} source={pointer} className="list-item list-item--action">
      {content}
    </ActionElement>
  );
}
