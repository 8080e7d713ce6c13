import { type NodeProps, useCondition, useFormId } from "../runtime/hooks";
import { ActionElement } from "./action-element";
import { cx } from "./class-names";
import { Glyph, isIconName } from "./icon";
import "./button.css";

/** A button, or a link styled as one when its action navigates. */
export function Button({ node, pointer }: NodeProps<"button">) {
  const disabled = useCondition(node.disabledWhen, false);
  const formId = useFormId();
  const { action } = node;
  const submitsForm =
    formId !== undefined && action.type === "submit" && (action.form === undefined || action.form === formId);
  return (
    <ActionElement
      action={action}
      source={pointer}
      disabled={disabled}
      submit={submitsForm}
      className={cx("button", `button--${node.emphasis ?? "primary"}`, node.tone !== undefined && `tone-${node.tone}`)}
    >
      {isIconName(node.icon) && <Glyph name={node.icon} />}
      <span className="button__label">{node.label}</span>
    </ActionElement>
  );
}
