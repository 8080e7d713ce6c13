import { Fragment, type ReactNode, useEffect, useId, useRef } from "react";
import { type NodeProps, useField } from "../runtime/hooks";
import { cx } from "./class-names";
import { FieldError } from "./field-parts";
import "./field.css";
import "./image-choice.css";

/**
 * A picture's path with a line break allowed after each "/" and "_" (a hyphen allows one
 * already): a narrow label wraps between the path's parts, never inside a word.
 */
export function breakablePath(path: string): ReactNode {
  const parts = path.split(/(?<=[/_])/);
  return parts.map((part, index) => (
    <Fragment key={index}>
      {part}
      {index < parts.length - 1 && <wbr />}
    </Fragment>
  ));
}

/**
 * A single choice among pictures: native radios (arrow keys move and choose, a screen reader
 * hears a radio group) drawn as a grid of thumbnails. The option's label names the picture; the
 * thumbnail itself is decorative.
 */
export function ImageChoice({ node }: NodeProps<"image_choice">) {
  const first = useRef<HTMLInputElement>(null);
  const { value, setValue, error } = useField(node, first);
  const grid = useRef<HTMLDivElement>(null);
  const groupId = useId();
  const errorId = `${groupId}-error`;

  // The grid scrolls: bring the current picture into its view once, so the editor sees what is
  // chosen without hunting for it (and without scrolling the page).
  useEffect(() => {
    const box = grid.current;
    const option = box?.querySelector("input:checked")?.closest("label");
    if (box === null || option === null || option === undefined) return;
    box.scrollTop = option.offsetTop - box.clientHeight / 2 + option.offsetHeight / 2;
  }, []);

  return (
    <fieldset
      className={cx("field image-choice", error !== undefined && "field--invalid")}
      aria-describedby={error !== undefined ? errorId : undefined}
    >
      <legend className="field__label">{node.label}</legend>
      <div ref={grid} className="image-choice__grid">
        {node.options.map((option, index) => (
          <label key={option.value} className="image-choice__option">
            <input
              ref={index === 0 ? first : undefined}
              type="radio"
              className="image-choice__input"
              name={groupId}
              value={option.value}
              checked={value === option.value}
              aria-invalid={error !== undefined || undefined}
              onChange={() => setValue(option.value)}
            />
            {option.image !== undefined ? (
              <img className="image-choice__thumb" src={option.image.src} alt="" loading="lazy" decoding="async" />
            ) : (
              <span className="image-choice__thumb image-choice__thumb--empty" aria-hidden="true" />
            )}
            <span className="image-choice__label">{breakablePath(option.label)}</span>
          </label>
        ))}
      </div>
      <FieldError id={errorId} message={error} />
    </fieldset>
  );
}
