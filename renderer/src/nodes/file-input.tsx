import { useId, useRef, useState } from "react";
import { type NodeProps, t, useFileInput } from "../runtime/hooks";
import { cx } from "./class-names";
import { FieldError } from "./field-parts";
import "./button.css";
import "./field.css";

/** A labelled file chooser; an `upload` action sends the chosen file. */
export function FileInput({ node }: NodeProps<"file_input">) {
  const input = useRef<HTMLInputElement>(null);
  const { error, choose } = useFileInput(node, input);
  const [name, setName] = useState<string | undefined>(undefined);
  const inputId = useId();
  const errorId = `${inputId}-error`;
  const helpId = `${inputId}-help`;
  const described = [node.help !== undefined ? helpId : undefined, error !== undefined ? errorId : undefined]
    .filter((part) => part !== undefined)
    .join(" ");
  return (
    <div className={cx("field", error !== undefined && "field--invalid")}>
      <label className="field__label" htmlFor={inputId}>
        {node.label}
      </label>
      {/* The native input stays the control (its label, keyboard, screen reader's "no file chosen"),
          drawn invisibly over a styled button and the chosen file's name (issue #21). */}
      <div className="file-picker">
        <input
          ref={input}
          id={inputId}
          name={node.id}
          className="file-picker__input"
          type="file"
          accept={node.accept}
          aria-invalid={error !== undefined || undefined}
          aria-describedby={described === "" ? undefined : described}
          onChange={(event) => {
            const file = event.target.files?.[0] ?? null;
            setName(file?.name);
            choose(file);
          }}
        />
        <span className="button button--secondary file-picker__button" aria-hidden="true">
          {t("chooseFile")}
        </span>
        <span className={cx("file-picker__name", name === undefined && "file-picker__name--none")} aria-hidden="true">
          {name ?? t("noFile")}
        </span>
      </div>
      {node.help !== undefined && (
        <p id={helpId} className="field__help">
          {node.help}
        </p>
      )}
      <FieldError id={errorId} message={error} />
    </div>
  );
}
