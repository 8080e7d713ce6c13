import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderNode } from "../test/harness";

describe("card", () => {
  it("is one link named by its action label when it navigates, with a 44px target", async () => {
    await renderNode({
      type: "card",
      action: { type: "navigate", to: "/dashboard/insights" },
      actionLabel: "View insights",
      children: [{ type: "text", text: "Tips & Insights", style: "heading" }],
    });
    expect(screen.getByRole("link", { name: "View insights" }).getAttribute("href")).toBe("/dashboard/insights");
    expect(screen.getByRole("heading", { name: "Tips & Insights" })).toBeTruthy();
  });

  it("is named by its content without an action label", async () => {
    await renderNode({
      type: "card",
      action: { type: "navigate", to: "/dashboard/news" },
      children: [{ type: "text", text: "News" }],
    });
    expect(screen.getByRole("link", { name: "News" })).toBeTruthy();
  });

  it("is a button for a non-navigating action, and plain without one", async () => {
    await renderNode({
      type: "stack",
      children: [
        { type: "card", action: { type: "open_overlay", id: "buy" }, actionLabel: "Buy the course", children: [] },
        { type: "card", tone: "positive", image: { src: "/a.png", alt: "Cover" }, children: [{ type: "text", text: "Static" }] },
      ],
    });
    expect(screen.getByRole("button", { name: "Buy the course" })).toBeTruthy();
    expect(screen.getByRole("img", { name: "Cover" })).toBeTruthy();
    expect(screen.getAllByRole("button")).toHaveLength(1);
  });
});
