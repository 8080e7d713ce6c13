import { screen, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { renderNode } from "../test/harness";

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
    // The axis fits the data: the lowest value sits on the plot's base, the highest at its top,
    // each labelled, the others in proportion between.
    const ys = points.map((p) => Number(p.split(",")[1]));
    expect(ys).toEqual([112, 8, 112 - (20 / 50) * 104].map((y) => Number(y.toFixed(1))));
    expect(container.querySelector(".chart__scale-high")?.textContent).toBe("150");
    expect(container.querySelector(".chart__scale-low")?.textContent).toBe("100");
    const table = within(figure).getByRole("table", { name: "Followers" });
    expect(within(table).getAllByRole("row")).toHaveLength(3);
    expect(within(table).getByText("150")).toBeTruthy();
  });

  it("fits a small change on a large count: +34 on 22,012 rises across the plot", async () => {
    const { container } = await renderNode({
      type: "chart",
      label: "Followers over time",
      points: [
        { x: "Nov 20", y: 22012, yLabel: "22,012" },
        { x: "Nov 21", y: 22046, yLabel: "22,046" },
      ],
    });
    const ys = (container.querySelector("polyline")?.getAttribute("points")?.split(" ") ?? []).map((p) =>
      Number(p.split(",")[1]),
    );
    expect(ys).toEqual([112, 8]);
    expect(container.querySelector(".chart__scale-high")?.textContent).toBe("22,046");
    expect(container.querySelector(".chart__scale-low")?.textContent).toBe("22,012");
  });

  it("draws values whose labels read the same as one level line, labelled once", async () => {
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
    expect(ys).toEqual([60, 60]);
    expect(container.querySelector(".chart__scale-level")?.textContent).toBe("3.22%");
    expect(container.querySelector(".chart__scale-high")).toBeNull();
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
