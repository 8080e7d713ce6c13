import { act, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { renderNode } from "../../test/harness";

const overlays = { offer: { type: "dialog", id: "offer", title: "A gift for you", children: [] } };

describe("open_overlay", () => {
  it("opens a dialog from the envelope's overlays", async () => {
    const { runtime } = await renderNode({ type: "text", text: "Page" }, { overlays });
    expect(screen.queryByRole("dialog")).toBeNull();
    await act(async () => {
      expect(await runtime.run({ type: "open_overlay", id: "offer" })).toBe(true);
    });
    expect(screen.getByRole("dialog", { name: "A gift for you" })).toBeTruthy();
    expect(runtime.store.get().overlays).toEqual(["offer"]);
  });

  it("opens overlays listed in the envelope's open", async () => {
    await renderNode({ type: "text", text: "Page" }, { overlays, open: ["offer"] });
    expect(screen.getByRole("dialog", { name: "A gift for you" })).toBeTruthy();
  });

  it("fails for an overlay the screen does not have", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const { runtime } = await renderNode({ type: "text", text: "Page" }, { overlays });
    expect(await runtime.run({ type: "open_overlay", id: "nope" })).toBe(false);
    expect(error).toHaveBeenCalled();
  });
});
