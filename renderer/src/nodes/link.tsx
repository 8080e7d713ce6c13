import type { NodeProps } from "../runtime/hooks";
import { ActionElement } from "./action-element";
import { cx } from "./class-names";
import { Glyph, isIconName } from "./icon";
import "./button.css";

/** An inline text link (a button styled as a link when its action does not navigate). */
export function Link({ node, pointer }: NodeProps<"link">) {
  return (
    <ActionElement
      action={node.action}
      source={pointer}
      className={cx("link", node.tone !== undefined && `tone-text-${node.tone}`)}
    >
      {isIconName(node.icon) && node.icon !== "chevron" && <Glyph name={node.icon} />}
      <span className="link__label">{node.label}</span>
      {node.icon === "chevron" && <Glyph name="chevron" className="link__chevron" />}
    </ActionElement>
  );
}
