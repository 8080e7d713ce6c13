import { useId, useRef, useState } from "react";
import { type NodeProps, useField, t } from "../runtime/hooks";
import { cx } from "./class-names";
import { asText, FieldError, inZone } from "./field-parts";
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
  // A UTC time is also shown in the editor's own zone, when the browser's is another.
  const zone = kind === "datetime-local" ? Intl.DateTimeFormat().resolvedOptions().timeZone : undefined;
  const local = zone === undefined ? undefined : inZone(asText(value), zone);
  const hintId = `${inputId}-hint`;
  const describedBy = [error !== undefined ? errorId : "", local !== undefined ? hintId : ""].filter(Boolean).join(" ");
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
          aria-describedby={describedBy === "" ? undefined : describedBy}
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
      {local !== undefined && zone !== undefined && (
        <p id={hintId} className="field__hint">
          {t("datetime.inZone", { time: local, zone })}
        </p>
      )}
      <FieldError id={errorId} message={error} />
    </div>
  );
}
