import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { envelope, renderApp, renderNode } from "../test/harness";

describe("link", () => {
  it("navigates within the app through its href", async () => {
    const { user } = await renderApp({
      "/sign-in": envelope([{ type: "link", label: "Forgot password?", action: { type: "navigate", to: "/access-recovery" } }]),
      "/access-recovery": envelope([{ type: "text", text: "Access Recovery" }]),
    }, { url: "/sign-in" });
    const link = screen.getByRole("link", { name: "Forgot password?" });
    expect(link.getAttribute("href")).toBe("/access-recovery");
    await user.click(link);
    expect(await screen.findByText("Access Recovery")).toBeTruthy();
    expect(window.location.pathname).toBe("/access-recovery");
  });

  it("is a button styled as a link when its action does not navigate", async () => {
    await renderNode({ type: "link", label: "Log out", action: { type: "open_overlay", id: "logout" } });
    expect(screen.getByRole("button", { name: "Log out" }).className).toContain("link");
  });
});
