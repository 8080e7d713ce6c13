import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderNode } from "../test/harness";

describe("divider", () => {
  it("is a separator", async () => {
    await renderNode({ type: "divider" });
    expect(screen.getByRole("separator")).toBeTruthy();
  });
});
