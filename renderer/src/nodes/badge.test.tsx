import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderNode } from "../test/harness";

describe("badge", () => {
  it("shows its label in its tone", async () => {
    await renderNode({ type: "badge", label: "PURCHASED", tone: "positive" });
    expect(screen.getByText("PURCHASED").className).toBe("badge tone-positive");
  });
});
