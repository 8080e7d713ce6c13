import { act, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderNode } from "../../test/harness";

const overlays = {
  menu: { type: "dialog", id: "menu", title: "Menu", presentation: "drawer", children: [] },
  logout: { type: "dialog", id: "logout", title: "Log out?", children: [] },
};

describe("close_overlay", () => {
  it("closes the topmost overlay by default", async () => {
    const { runtime } = await renderNode({ type: "text", text: "Page" }, { overlays, open: ["menu", "logout"] });
    await act(() => runtime.run({ type: "close_overlay" }));
    expect(screen.queryByRole("dialog", { name: "Log out?" })).toBeNull();
    expect(screen.getByRole("dialog", { name: "Menu" })).toBeTruthy();
  });

  it("closes a named overlay", async () => {
    const { runtime } = await renderNode({ type: "text", text: "Page" }, { overlays, open: ["menu", "logout"] });
    await act(() => runtime.run({ type: "close_overlay", id: "menu" }));
    expect(runtime.store.get().overlays).toEqual(["logout"]);
  });
});
