import { screen, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { renderNode } from "../test/harness";
import { zeroLike } from "./chart";

describe("chart", () => {
  it("draws a line through the points and lists the values for screen readers", async () => {
    const { container } = await renderNode({
      type: "chart",
      label: "Followers",
      points: [
        { x: "Nov 20", y: 100, yLabel: "100" },
        { x: "Nov 21", y: 150, yLabel: "150" },
        { x: "Nov 22", y: 120, yLabel: "120" },
      ],
    });
    const figure = screen.getByRole("figure", { name: "Followers" });
    expect(container.querySelectorAll("circle")).toHaveLength(3);
    const points = container.querySelector("polyline")?.getAttribute("points")?.split(" ") ?? [];
    expect(points).toHaveLength(3);
    // Counts start at zero: the highest value sits at the top of the plot, the others in
    // proportion below it.
    const ys = points.map((p) => Number(p.split(",")[1]));
    expect(ys).toEqual([112 - (100 / 150) * 104, 8, 112 - (120 / 150) * 104].map((y) => Number(y.toFixed(1))));
    expect(container.querySelector(".chart__scale-high")?.textContent).toBe("150");
    expect(container.querySelector(".chart__scale-low")?.textContent).toBe("0");
    const table = within(figure).getByRole("table", { name: "Followers" });
    expect(within(table).getAllByRole("row")).toHaveLength(3);
    expect(within(table).getByText("150")).toBeTruthy();
  });

  it("draws rates that barely moved as a flat line over a scale from 0%", async () => {
    const { container } = await renderNode({
      type: "chart",
      label: "Engagement rate",
      points: [
        { x: "Nov 20", y: 3.2249, yLabel: "3.22%" },
        { x: "Nov 21", y: 3.2201, yLabel: "3.22%" },
      ],
    });
    const ys = (container.querySelector("polyline")?.getAttribute("points")?.split(" ") ?? []).map((p) =>
      Number(p.split(",")[1]),
    );
    expect(ys).toHaveLength(2);
    // 0.0048 points of 3.2249 is 0.15% of the plot's 104px: a flat line.
    expect(Math.abs((ys[1] ?? 0) - (ys[0] ?? 0))).toBeLessThan(0.5);
    expect(container.querySelector(".chart__scale-high")?.textContent).toBe("3.22%");
    expect(container.querySelector(".chart__scale-low")?.textContent).toBe("0%");
  });

  it("spans its own range when values go below zero", async () => {
    const { container } = await renderNode({
      type: "chart",
      label: "Change",
      points: [
        { x: "Nov 20", y: -20, yLabel: "−20" },
        { x: "Nov 21", y: 40, yLabel: "+40" },
      ],
    });
    const ys = (container.querySelector("polyline")?.getAttribute("points")?.split(" ") ?? []).map((p) =>
      Number(p.split(",")[1]),
    );
    expect(ys).toEqual([112, 8]);
    expect(container.querySelector(".chart__scale-high")?.textContent).toBe("+40");
    expect(container.querySelector(".chart__scale-low")?.textContent).toBe("−20");
  });

  it("writes zero in the unit of the label", () => {
    expect(zeroLike("3.22%")).toBe("0%");
    expect(zeroLike("30,120")).toBe("0");
    expect(zeroLike("$1,234.50")).toBe("$0");
    expect(zeroLike("many")).toBe("0");
  });

  it("draws a single point in the middle", async () => {
    const { container } = await renderNode({ type: "chart", label: "Rate", points: [{ x: "Today", y: 2, yLabel: "2%" }] });
    expect(container.querySelector("circle")?.getAttribute("cx")).toBe("160");
  });

  it("rejects a chart without points", async () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    await renderNode({ type: "chart", label: "Empty", points: [] });
    expect(screen.queryByRole("figure")).toBeNull();
  });
});
