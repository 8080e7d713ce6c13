import { useId } from "react";
import type { NodeProps } from "../runtime/hooks";
import { cx } from "./class-names";
import "./level-meter.css";

const CELLS = [1, 2, 3, 4, 5] as const;

/** Five cells, the first `level` filled in the colour of that level. */
export function LevelMeter({ node }: NodeProps<"level_meter">) {
  const labelId = useId();
  const valueText = [node.valueLabel, node.status].filter((part) => part !== undefined && part !== "").join(", ");
  return (
    <div className="level-meter">
      <div className="level-meter__head">
        <span id={labelId} className="level-meter__label">
          {node.label}
        </span>
        {node.valueLabel !== undefined && <span className="level-meter__value">{node.valueLabel}</span>}
      </div>
      <div
        role="meter"
        aria-labelledby={labelId}
        aria-valuemin={0}
        aria-valuemax={5}
        aria-valuenow={node.level}
        aria-valuetext={valueText === "" ? undefined : valueText}
        className={`level-meter__cells level-${node.level}`}
      >
        {CELLS.map((cell) => (
          <span key={cell} className={cx("level-meter__cell", cell <= node.level && "is-filled")} />
        ))}
      </div>
      {node.status !== undefined && <span className={`level-meter__status level-text-${node.level}`}>{node.status}</span>}
    </div>
  );
}
