import { screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { renderNodes } from "../test/harness";

describe("icon", () => {
  it("is an image when labelled and hidden when decorative", async () => {
    const { container } = await renderNodes([
      { type: "icon", name: "lock", label: "Locked", tone: "danger", size: "lg" },
      { type: "icon", name: "star" },
    ]);
    const labelled = screen.getByRole("img", { name: "Locked" });
    expect(labelled.getAttribute("class")).toContain("icon--lg");
    const icons = container.querySelectorAll("svg.icon");
    expect(icons).toHaveLength(2);
    expect(icons[1]?.getAttribute("aria-hidden")).toBe("true");
  });

  it("renders nothing for a name outside the icon set", async () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    const { container } = await renderNodes([{ type: "icon", name: "unicorn" }]);
    expect(container.querySelector("svg.icon")).toBeNull();
  });
});
