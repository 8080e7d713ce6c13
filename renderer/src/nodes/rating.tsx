import { useId, useRef } from "react";
import { type NodeProps, useField, t } from "../runtime/hooks";
import { cx } from "./class-names";
import { FieldError } from "./field-parts";
import { Glyph } from "./icon";
import "./field.css";

/** Stars from 1 to max (5 by default) as radio buttons, bound to the state as a number. */
export function Rating({ node }: NodeProps<"rating">) {
  const first = useRef<HTMLInputElement>(null);
  const { value, setValue, error } = useField(node, first);
  const groupId = useId();
  const errorId = `${groupId}-error`;
  const max = node.max ?? 5;
  const current = typeof value === "number" ? value : 0;
  const stars = Array.from({ length: max }, (_, index) => index + 1);
  return (
    <fieldset
      className={cx("field rating", error !== undefined && "field--invalid")}
      aria-describedby={error !== undefined ? errorId : undefined}
    >
      <legend className="field__label">{node.label}</legend>
      <div className="rating__stars">
        {stars.map((star) => (
          <label key={star} className={cx("rating__star", star <= current && "is-on")}>
            <input
              ref={star === 1 ? first : undefined}
              type="radio"
              className="sr-only"
              name={groupId}
              value={star}
              checked={current === star}
              onChange={() => setValue(star)}
            />
            <Glyph name="star" />
            <span className="sr-only">{t("rating.star", { n: star, max })}</span>
          </label>
        ))}
      </div>
      <FieldError id={errorId} message={error} />
    </fieldset>
  );
}
