import { useId, useRef, useState } from "react";
import { type NodeProps, useField, t } from "../runtime/hooks";
import { cx } from "./class-names";
import { asText, FieldError } from "./field-parts";
import { Glyph } from "./icon";
import "./field.css";

/** A labelled single-line input bound to the state; a password can be shown. */
export function TextInput({ node }: NodeProps<"text_input">) {
  const input = useRef<HTMLInputElement>(null);
  const { value, setValue, error } = useField(node, input);
  const inputId = useId();
  const errorId = `${inputId}-error`;
  const [revealed, setRevealed] = useState(false);
  const kind = node.kind ?? "text";
  return (
    <div className={cx("field", error !== undefined && "field--invalid")}>
      <label className="field__label" htmlFor={inputId}>
        {node.label}
      </label>
      <div className="field__control">
        <input
          ref={input}
          id={inputId}
          name={node.id}
          data-bind={node.bind}
          className="field__input"
          type={kind === "password" && revealed ? "text" : kind}
          value={asText(value)}
          placeholder={node.placeholder}
          autoComplete={node.autocomplete}
          disabled={node.disabled}
          spellCheck={kind === "text" ? undefined : false}
          autoCapitalize={kind === "text" ? undefined : "none"}
          aria-invalid={error !== undefined || undefined}
          aria-describedby={error !== undefined ? errorId : undefined}
          step={kind === "datetime-local" ? 1 : undefined}
          onChange={(event) => setValue(event.target.value)}
        />
        {kind === "password" && (
          <button
            type="button"
            className="icon-button field__reveal"
            aria-label={t("showPassword")}
            aria-pressed={revealed}
            onClick={() => setRevealed(!revealed)}
          >
            <Glyph name="eye" />
          </button>
        )}
      </div>
      <FieldError id={errorId} message={error} />
    </div>
  );
}
