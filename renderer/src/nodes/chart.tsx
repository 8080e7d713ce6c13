import { useId } from "react";
import type { NodeProps } from "../runtime/hooks";
import "./chart.css";

const WIDTH = 320;
const HEIGHT = 120;
const PAD = 8;

type Point = { y: number; yLabel: string };

/**
 * The value range the plot spans and the labels of its ends. Figures that cannot be negative
 * (counts, rates) start at zero, so a change is drawn in proportion to the whole: 3.2201% and
 * 3.2249% are one flat line, not a cliff. Only a series with negative values spans its own range.
 */
function scale(points: readonly Point[]): { low: number; high: number; lowLabel: string; highLabel: string } {
  const top = points.reduce<Point | undefined>((best, p) => (best === undefined || p.y > best.y ? p : best), undefined);
  const bottom = points.reduce<Point | undefined>((best, p) => (best === undefined || p.y < best.y ? p : best), undefined);
  if (top === undefined || bottom === undefined) return { low: 0, high: 1, lowLabel: "0", highLabel: "1" };
  if (bottom.y >= 0) {
    return { low: 0, high: top.y > 0 ? top.y : 1, lowLabel: zeroLike(top.yLabel), highLabel: top.yLabel };
  }
  return { low: bottom.y, high: top.y > bottom.y ? top.y : bottom.y + 1, lowLabel: bottom.yLabel, highLabel: top.yLabel };
}

/** Zero written as label writes its number, keeping its unit: "3.22%" → "0%", "30,120" → "0". */
export function zeroLike(label: string): string {
  const zero = label.replace(/\d(?:[\d.,\u00a0\u202f ]*\d)?/, "0");
  return zero === label ? "0" : zero;
}

/**
 * A small line chart drawn as SVG, its scale labelled at both ends. The picture is one labelled
 * image; the values are also in a table that screen readers read (and sighted people never see), so
 * nothing is conveyed by the line alone.
 */
export function Chart({ node }: NodeProps<"chart">) {
  const titleId = useId();
  const { low, high, lowLabel, highLabel } = scale(node.points);
  const step = node.points.length > 1 ? (WIDTH - 2 * PAD) / (node.points.length - 1) : 0;
  const coords = node.points.map((p, i) => {
    const x = node.points.length > 1 ? PAD + i * step : WIDTH / 2;
    const y = HEIGHT - PAD - ((p.y - low) / (high - low)) * (HEIGHT - 2 * PAD);
    return { x, y };
  });
  const line = coords.map((c) => `${c.x.toFixed(1)},${c.y.toFixed(1)}`).join(" ");
  const first = node.points[0];
  const last = node.points[node.points.length - 1];
  return (
    <figure className="chart" aria-labelledby={titleId}>
      <figcaption id={titleId} className="chart__title">
        {node.label}
      </figcaption>
      <div className="chart__frame">
        <div className="chart__scale" aria-hidden="true">
          <span className="chart__scale-high">{highLabel}</span>
          <span className="chart__scale-low">{lowLabel}</span>
        </div>
        <svg
          className="chart__plot"
          viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
          preserveAspectRatio="none"
          aria-hidden="true"
          focusable="false"
        >
          <line className="chart__grid" x1={0} x2={WIDTH} y1={PAD} y2={PAD} />
          <line className="chart__grid chart__grid--base" x1={0} x2={WIDTH} y1={HEIGHT - PAD} y2={HEIGHT - PAD} />
          <polyline className="chart__line" points={line} />
          {coords.map((c, i) => (
            <circle key={i} className="chart__dot" cx={c.x} cy={c.y} r={3} />
          ))}
        </svg>
      </div>
      {first !== undefined && last !== undefined && (
        <div className="chart__axis" aria-hidden="true">
          <span>
            {first.x}: {first.yLabel}
          </span>
          {node.points.length > 1 && (
            <span>
              {last.x}: {last.yLabel}
            </span>
          )}
        </div>
      )}
      <table className="sr-only">
        <caption>{node.label}</caption>
        <tbody>
          {node.points.map((p, i) => (
            <tr key={i}>
              <th scope="row">{p.x}</th>
              <td>{p.yLabel}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}
