import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderNode, renderNodes } from "../test/harness";

describe("stat_tile", () => {
  it("shows its label, value and caption", async () => {
    await renderNode({ type: "stat_tile", label: "New followers", value: "1,204", caption: "last 7 days" });
    expect(screen.getByText("New followers")).toBeTruthy();
    expect(screen.getByText("1,204")).toBeTruthy();
    expect(screen.getByText("last 7 days")).toBeTruthy();
  });

  it("shows a clock with the pending label while the value is null", async () => {
    const { container } = await renderNode({ type: "stat_tile", label: "Secret fans", value: null, pendingLabel: "Still counting" });
    expect(screen.getByRole("img", { name: "Still counting" })).toBeTruthy();
    expect(container.querySelector(".clock")).toBeTruthy();
  });

  it("is a link when its action navigates", async () => {
    await renderNodes([{ type: "stat_tile", label: "Likes", value: "12", action: { type: "navigate", to: "/dashboard/analytics" } }]);
    expect(screen.getByRole("link").getAttribute("href")).toBe("/dashboard/analytics");
  });
});
