import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderNode } from "../test/harness";

describe("list", () => {
  it("is a named list of its children", async () => {
    await renderNode({
      type: "list",
      label: "News",
      divided: true,
      children: [
        { type: "list_item", title: "First post" },
        { type: "list_item", title: "Second post" },
        { type: "list_item", title: "Hidden", visible: false },
      ],
    });
    const list = screen.getByRole("list", { name: "News" });
    expect(list.className).toContain("list--divided");
    const items = screen.getAllByRole("listitem").filter((item) => item.textContent !== "");
    expect(items.map((item) => item.textContent)).toEqual(["First post", "Second post"]);
  });

  it("is ordered when asked", async () => {
    await renderNode({ type: "list", ordered: true, children: [{ type: "list_item", title: "Step" }] });
    expect(screen.getByRole("list").tagName).toBe("OL");
  });

  it("pads entries that are not list items off the panel's rounded edges", async () => {
    await renderNode({
      type: "list",
      label: "What happens",
      children: [
        { type: "text", style: "body", text: "Your plan ends now." },
        { type: "list_item", title: "A list item pads itself" },
      ],
    });
    const entries = screen.getAllByRole("listitem");
    expect(entries[0]?.className).toContain("list__entry--padded");
    expect(entries[1]?.className).not.toContain("list__entry--padded");
  });
});
