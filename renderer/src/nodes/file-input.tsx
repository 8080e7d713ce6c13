import { useId, useRef, useState } from "react";
import { type NodeProps, useFileInput } from "../runtime/hooks";
import { cx } from "./class-names";
import { FieldError } from "./field-parts";
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
      <input
        ref={input}
        id={inputId}
        name={node.id}
        className="field__input field__input--file"
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
      {name !== undefined && <p className="field__help">{name}</p>}
      {node.help !== undefined && (
        <p id={helpId} className="field__help">
          {node.help}
        </p>
      )}
      <FieldError id={errorId} message={error} />
    </div>
  );
}
