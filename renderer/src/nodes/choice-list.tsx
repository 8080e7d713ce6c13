import { useId, useRef } from "react";
import { type NodeProps, useField } from "../runtime/hooks";
import { cx } from "./class-names";
import { FieldError } from "./field-parts";
import "./field.css";

/** A single choice among options (radio buttons drawn as cards), bound to the state. */
export function ChoiceList({ node }: NodeProps<"choice_list">) {
  const first = useRef<HTMLInputElement>(null);
  const { value, setValue, error } = useField(node, first);
  const groupId = useId();
  const errorId = `${groupId}-error`;
  return (
    <fieldset
      className={cx("field choice-list", error !== undefined && "field--invalid")}
      aria-describedby={error !== undefined ? errorId : undefined}
    >
      <legend className="field__label">{node.label}</legend>
      {node.options.map((option, index) => (
        <label key={option.value} className="choice">
          <input
            ref={index === 0 ? first : undefined}
            type="radio"
            className="choice__input"
            name={groupId}
            value={option.value}
            checked={value === option.value}
            aria-invalid={error !== undefined || undefined}
            onChange={() => setValue(option.value)}
          />
          <span className="choice__text">
            <span className="choice__label">{option.label}</span>
            {option.description !== undefined && <span className="choice__description">{option.description}</span>}
          </span>
        </label>
      ))}
      <FieldError id={errorId} message={error} />
    </fieldset>
  );
}
