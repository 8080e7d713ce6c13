import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderNode } from "../test/harness";

describe("row", () => {
  it("lays its children out horizontally", async () => {
    await renderNode({
      type: "row",
      justify: "between",
      wrap: true,
      children: [
        { type: "text", text: "Left" },
        { type: "badge", label: "New" },
      ],
    });
    const row = screen.getByText("Left").parentElement;
    expect(row?.className).toContain("row");
    expect(row?.className).toContain("justify-between");
    expect(row?.className).toContain("row--wrap");
  });
});
