import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderNode } from "../test/harness";

describe("stack", () => {
  it("lays its children out vertically with gap and tone", async () => {
    await renderNode({
      type: "stack",
      gap: "lg",
      tone: "brand",
      padded: true,
      children: [
        { type: "text", text: "One" },
        { type: "text", text: "Two" },
      ],
    });
    const stack = screen.getByText("One").parentElement;
    expect(stack?.className).toContain("stack");
    expect(stack?.className).toContain("gap-lg");
    expect(stack?.className).toContain("tone-brand");
    expect(stack?.textContent).toBe("OneTwo");
  });
});
