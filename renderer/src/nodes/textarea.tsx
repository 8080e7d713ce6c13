import { useId, useRef } from "react";
import { type NodeProps, useField } from "../runtime/hooks";
import { cx } from "./class-names";
import { asText, FieldError } from "./field-parts";
import "./field.css";

/** A labelled multi-line input bound to the state, with a counter when it has a maximum. */
export function Textarea({ node }: NodeProps<"textarea">) {
  const input = useRef<HTMLTextAreaElement>(null);
  const { value, setValue, error } = useField(node, input);
  const inputId = useId();
  const errorId = `${inputId}-error`;
  const text = asText(value);
  return (
    <div className={cx("field", error !== undefined && "field--invalid")}>
      <label className="field__label" htmlFor={inputId}>
        {node.label}
      </label>
      <textarea
        ref={input}
        id={inputId}
        name={node.id}
        className="field__input field__input--multiline"
        rows={node.rows ?? 4}
        maxLength={node.maxLength}
        value={text}
        placeholder={node.placeholder}
        aria-invalid={error !== undefined || undefined}
        aria-describedby={error !== undefined ? errorId : undefined}
        onChange={(event) => setValue(event.target.value)}
      />
      {node.maxLength !== undefined && (
        <span className="field__counter" aria-hidden="true">
          {Array.from(text).length}/{node.maxLength}
        </span>
      )}
      <FieldError id={errorId} message={error} />
    </div>
  );
}
