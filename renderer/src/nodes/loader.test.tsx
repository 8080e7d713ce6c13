import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderNode } from "../test/harness";

describe("loader", () => {
  it("is a status with its label", async () => {
    await renderNode({ type: "loader", label: "Analysing your profile", fullscreen: true });
    const status = screen.getByRole("status", { name: "Analysing your profile" });
    expect(status.textContent).toContain("Analysing your profile");
    expect(status.className).toContain("loader--fullscreen");
  });
});
