import { screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import paths from "../../../engine/ui/icons.json";
import { ICON_NAMES } from "../schema/node";
import { renderNodes } from "../test/harness";
import { isIconName } from "./icon";

describe("icon", () => {
  it("knows the schema's icon names, and only those, by their paths", () => {
    expect(Object.keys(paths).sort()).toEqual([...ICON_NAMES].sort());
    expect(ICON_NAMES.every((name) => isIconName(name))).toBe(true);
    expect([undefined, "", "unicorn", "toString"].some((name) => isIconName(name))).toBe(false);
  });

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
