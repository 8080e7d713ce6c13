import { screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { renderNode } from "../test/harness";

describe("level_meter", () => {
  it("is a meter with five cells, the first `level` filled in that level's colour", async () => {
    await renderNode({ type: "level_meter", label: "Engagement rate", level: 3, valueLabel: "4.2%", status: "Good" });
    const meter = screen.getByRole("meter", { name: "Engagement rate" });
    expect(meter.getAttribute("aria-valuenow")).toBe("3");
    expect(meter.getAttribute("aria-valuemax")).toBe("5");
    expect(meter.getAttribute("aria-valuetext")).toBe("4.2%, Good");
    expect(meter.className).toContain("level-3");
    const cells = [...meter.children];
    expect(cells).toHaveLength(5);
    expect(cells.map((cell) => cell.classList.contains("is-filled"))).toEqual([true, true, true, false, false]);
    expect(screen.getByText("Good")).toBeTruthy();
  });

  it("rejects a level outside 0..5", async () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    await renderNode({ type: "level_meter", label: "Rate", level: 7 });
    expect(screen.queryByRole("meter")).toBeNull();
  });
});
