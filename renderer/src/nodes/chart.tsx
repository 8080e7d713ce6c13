import { useId } from "react";
import type { NodeProps } from "../runtime/hooks";
import "./chart.css";

const WIDTH = 320;
const HEIGHT = 120;
const PAD = 8;

/**
 * A small line chart drawn as SVG. The picture is one labelled image; the
 * values are also in a table that screen readers read (and sighted people
 * never see), so nothing is conveyed by the line alone.
 */
export function Chart({ node }: NodeProps<"chart">) {
  const titleId = useId();
  const ys = node.points.map((p) => p.y);
  const low = Math.min(...ys);
  const high = Math.max(...ys);
  const span = high - low || 1;
  const step = node.points.length > 1 ? (WIDTH - 2 * PAD) / (node.points.length - 1) : 0;
  const coords = node.points.map((p, i) => {
    const x = node.points.length > 1 ? PAD + i * step : WIDTH / 2;
    const y = HEIGHT - PAD - ((p.y - low) / span) * (HEIGHT - 2 * PAD);
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
      <svg
        className="chart__plot"
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        preserveAspectRatio="none"
        aria-hidden="true"
        focusable="false"
      >
        <polyline className="chart__line" points={line} />
        {coords.map((c, i) => (
          <circle key={i} className="chart__dot" cx={c.x} cy={c.y} r={3} />
        ))}
      </svg>
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
