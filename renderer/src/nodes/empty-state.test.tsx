import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderNode } from "../test/harness";

describe("empty_state", () => {
  it("shows its title, text and a way forward", async () => {
    await renderNode({
      type: "empty_state",
      icon: "news",
      title: "No news yet",
      text: "Come back tomorrow.",
      action: { type: "navigate", to: "/dashboard" },
      actionLabel: "Back to home",
    });
    expect(screen.getByText("No news yet")).toBeTruthy();
    expect(screen.getByText("Come back tomorrow.")).toBeTruthy();
    expect(screen.getByRole("link", { name: "Back to home" }).getAttribute("href")).toBe("/dashboard");
  });
});
