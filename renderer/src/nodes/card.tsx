import { useId } from "react";
import { type NodeProps, NodeList } from "../runtime/hooks";
import { ActionElement } from "./action-element";
import { cx } from "./class-names";
import { Glyph } from "./icon";
import "./card.css";

/**
 * A surface. With an action the whole card is one target: a link or button stretched over it,
 * named by actionLabel or else by the card's content, marked by a chevron.
 */
export function Card({ node, pointer }: NodeProps<"card">) {
  const contentId = useId();
  const interactive = node.action !== undefined;
  return (
    <div className={cx("card", node.tone !== undefined && `card--tone tone-${node.tone}`, interactive && "card--interactive")}>
      {node.image !== undefined && (
        <img
          className="card__image"
          src={node.image.src}
          alt={node.image.alt}
          width={node.image.intrinsic?.width}
          height={node.image.intrinsic?.height}
          decoding="async"
        />
      )}
      <div className="card__body" id={contentId}>
        <NodeList nodes={node.children} pointer={`${pointer}/children`} />
      </div>
      {interactive && (
        <ActionElement
          action={node.action}
          source={pointer}
          className="card__action"
          label={node.actionLabel}
          labelledBy={node.actionLabel === undefined ? contentId : undefined}
        >
          <Glyph name="chevron" />
        </ActionElement>
      )}
    </div>
  );
}
