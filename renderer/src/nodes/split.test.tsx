import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderNode } from "../test/harness";

describe("split", () => {
  it("renders each child as a column of one container, in order, with its gap", async () => {
    const { container } = await renderNode({
      type: "split",
      gap: "xl",
      children: [
        { type: "text", text: "Editor" },
        { type: "text", text: "Preview" },
      ],
    });
    await screen.findByText("Editor");
    const columns = container.querySelector(".split > .split__columns");
    expect(columns?.classList.contains("gap-xl")).toBe(true);
    expect(Array.from(columns?.children ?? []).map((child) => child.textContent)).toEqual(["Editor", "Preview"]);
    expect(screen.getByText("Editor")).toBeTruthy();
  });

  it("uses the large gap by default", async () => {
    const { container } = await renderNode({ type: "split", children: [{ type: "text", text: "Only" }] });
    await screen.findByText("Only");
    expect(container.querySelector(".split__columns")?.classList.contains("gap-lg")).toBe(true);
  });
});
