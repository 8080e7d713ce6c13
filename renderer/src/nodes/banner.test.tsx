import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderNode } from "../test/harness";

describe("banner", () => {
  it("shows its title, text and children and sticks to the bottom when asked", async () => {
    await renderNode({
      type: "banner",
      tone: "info",
      sticky: "bottom",
      title: "It takes time for our algorithms to analyse your profile data.",
      text: "Next update in",
      children: [{ type: "text", text: "Child" }],
    });
    const title = screen.getByText("It takes time for our algorithms to analyse your profile data.");
    const banner = title.parentElement;
    expect(banner?.className).toContain("banner--sticky-bottom");
    expect(banner?.className).toContain("tone-info");
    expect(screen.getByText("Next update in")).toBeTruthy();
    expect(screen.getByText("Child")).toBeTruthy();
  });
});
