import { useId } from "react";
import type { NodeProps } from "../runtime/hooks";
import "./chart.css";

const WIDTH = 320;
const HEIGHT = 120;
const PAD = 8;

type Point = { y: number; yLabel: string };

/**
 * The value range the plot spans, labelled at its ends: the series' own lowest and highest values,
 * so a change of +34 on 22,000 followers shows as the rise it is, not as a flat line on a scale from
 * zero (issue #21; the PDF report's charts fit their data too). Values whose labels read the same
 * (3.2201% and 3.2249% both "3.22%") differ by less than the labels can say: they are drawn as one
 * level line across the middle, labelled once, rather than a cliff between two equal labels.
 */
type Scale =
  | { flat: false; low: number; high: number; lowLabel: string; highLabel: string }
  | { flat: true; label: string };

function scale(points: readonly Point[]): Scale {
  const top = points.reduce<Point | undefined>((best, p) => (best === undefined || p.y > best.y ? p : best), undefined);
  const bottom = points.reduce<Point | undefined>((best, p) => (best === undefined || p.y < best.y ? p : best), undefined);
  if (top === undefined || bottom === undefined) return { flat: true, label: "" };
  if (top.y === bottom.y || top.yLabel === bottom.yLabel) return { flat: true, label: top.yLabel };
  return { flat: false, low: bottom.y, high: top.y, lowLabel: bottom.yLabel, highLabel: top.yLabel };
}

/**
 * A small line chart drawn as SVG, its scale labelled at both ends. The picture is one labelled
 * image; the values are also in a table that screen readers read (and sighted people never see), so
 * nothing is conveyed by the line alone.
 */
export function Chart({ node }: NodeProps<"chart">) {
  const titleId = useId();
  const range = scale(node.points);
  const step = node.points.length > 1 ? (WIDTH - 2 * PAD) / (node.points.length - 1) : 0;
  const coords = node.points.map((p, i) => {
    const x = node.points.length > 1 ? PAD + i * step : WIDTH / 2;
    const y = range.flat ? HEIGHT / 2 : HEIGHT - PAD - ((p.y - range.low) / (range.high - range.low)) * (HEIGHT - 2 * PAD);
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
        {range.flat ? (
          <div className="chart__scale chart__scale--flat" aria-hidden="true">
            <span className="chart__scale-level">{range.label}</span>
          </div>
        ) : (
          <div className="chart__scale" aria-hidden="true">
            <span className="chart__scale-high">{range.highLabel}</span>
            <span className="chart__scale-low">{range.lowLabel}</span>
          </div>
        )}
        <svg
          className="chart__plot"
          viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
          preserveAspectRatio="none"
          aria-hidden="true"
          focusable="false"
        >
          {range.flat ? (
            <line className="chart__grid" x1={0} x2={WIDTH} y1={HEIGHT / 2} y2={HEIGHT / 2} />
          ) : (
            <>
              <line className="chart__grid" x1={0} x2={WIDTH} y1={PAD} y2={PAD} />
              <line className="chart__grid" x1={0} x2={WIDTH} y1={HEIGHT - PAD} y2={HEIGHT - PAD} />
            </>
          )}
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
