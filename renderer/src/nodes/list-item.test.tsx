import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderNode } from "../test/harness";

describe("list_item", () => {
  it("shows title, subtitle, leading and trailing nodes", async () => {
    await renderNode({
      type: "list_item",
      title: "Password safety",
      subtitle: "Check your email",
      leading: { type: "icon", name: "shield", label: "Shield" },
      trailing: { type: "badge", label: "New" },
    });
    expect(screen.getByText("Password safety")).toBeTruthy();
    expect(screen.getByText("Check your email")).toBeTruthy();
    expect(screen.getByRole("img", { name: "Shield" })).toBeTruthy();
    expect(screen.getByText("New")).toBeTruthy();
  });

  it("is a link when its action navigates", async () => {
    await renderNode({ type: "list_item", title: "News", action: { type: "navigate", to: "/dashboard/news" } });
    expect(screen.getByRole("link", { name: "News" }).getAttribute("href")).toBe("/dashboard/news");
  });

  it("is a button for other actions", async () => {
    const { user, runtime } = await renderNode(
      { type: "list_item", title: "My Plan", action: { type: "set_state", path: "/picked", value: true } },
      { state: {} },
    );
    await user.click(screen.getByRole("button", { name: "My Plan" }));
    expect(runtime.store.get().state).toEqual({ picked: true });
  });
});
