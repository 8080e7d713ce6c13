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
    // The highest value sits at the top of the plot, the lowest at the bottom.
    const ys = points.map((p) => Number(p.split(",")[1]));
    expect(ys[1]).toBeLessThan(ys[2] ?? 0);
    expect(ys[0]).toBeGreaterThan(ys[2] ?? 0);
    const table = within(figure).getByRole("table", { name: "Followers" });
    expect(within(table).getAllByRole("row")).toHaveLength(3);
    expect(within(table).getByText("150")).toBeTruthy();
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
