import type { NodeProps } from "../runtime/hooks";
import { ActionElement } from "./action-element";
import { Glyph, isIconName } from "./icon";
import "./empty-state.css";

/** A friendly placeholder when there is nothing to show, with an optional way forward. */
export function EmptyState({ node, pointer }: NodeProps<"empty_state">) {
  return (
    <div className="empty-state">
      {isIconName(node.icon) && (
        <span className="empty-state__icon">
          <Glyph name={node.icon} />
        </span>
      )}
      <p className="empty-state__title">{node.title}</p>
      {node.text !== undefined && <p className="empty-state__text">{node.text}</p>}
      {node.action !== undefined && (
        <ActionElement action={node.action} source={pointer} className="button button--secondary">
          <span className="button__label">{node.actionLabel ?? node.title}</span>
        </ActionElement>
      )}
    </div>
  );
}
