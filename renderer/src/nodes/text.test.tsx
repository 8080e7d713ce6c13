import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderNode, renderNodes } from "../test/harness";

describe("text", () => {
  it("renders a display text as the page heading", async () => {
    await renderNode({ type: "text", text: "Analyze your account", style: "display" });
    expect(screen.getByRole("heading", { level: 1, name: "Analyze your account" })).toBeTruthy();
  });

  it("gives headings levels that never skip under a screen's h1", async () => {
    await renderNodes(
      [
        { type: "text", text: "Section", style: "heading" },
        { type: "text", text: "Part", style: "subheading" },
        { type: "text", text: "Intro", style: "title" },
      ],
      { screen: { header: { type: "header", title: "Analytics" } } },
    );
    const levels = screen.getAllByRole("heading").map((h) => [h.tagName, h.textContent]);
    expect(levels).toEqual([
      ["H1", "Analytics"],
      ["H2", "Section"],
      ["H3", "Part"],
      ["H2", "Intro"],
    ]);
  });

  it("renders body text as a paragraph with its tone", async () => {
    await renderNode({ type: "text", text: "Hello", tone: "danger" });
    const paragraph = screen.getByText("Hello");
    expect(paragraph.tagName).toBe("P");
    expect(paragraph.className).toContain("tone-text-danger");
  });

  it("takes the focus when asked, without becoming a tab stop", async () => {
    await renderNodes([
      { type: "text", text: "Other", style: "heading" },
      { type: "text", text: "demo@example.com", style: "title", focus: true },
    ]);
    const heading = screen.getByRole("heading", { name: "demo@example.com" });
    expect(document.activeElement).toBe(heading);
    expect(heading.getAttribute("tabindex")).toBe("-1");
    expect(screen.getByRole("heading", { name: "Other" }).getAttribute("tabindex")).toBeNull();
  });

  it("is a live region when asked", async () => {
    await renderNode({ type: "text", text: "Saved", live: "polite" });
    expect(screen.getByText("Saved").getAttribute("aria-live")).toBe("polite");
  });

  it("honours visible", async () => {
    await renderNodes(
      [
        { type: "text", text: "Shown", visible: { path: "/flag" } },
        { type: "text", text: "Hidden", visible: { not: { path: "/flag" } } },
      ],
      { state: { flag: true } },
    );
    expect(screen.queryByText("Shown")).toBeTruthy();
    expect(screen.queryByText("Hidden")).toBeNull();
  });
});
