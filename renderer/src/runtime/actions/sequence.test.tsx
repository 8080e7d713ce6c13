import { act } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { envelope, renderApp } from "../../test/harness";

describe("sequence", () => {
  it("runs its actions in order", async () => {
    const { runtime, server } = await renderApp(() => envelope([], { state: {} }));
    await act(async () => {
      const ok = await runtime.run({
        type: "sequence",
        actions: [
          { type: "set_state", path: "/a", value: 1 },
          { type: "track", event: "first" },
          { type: "set_state", path: "/b", value: 2 },
        ],
      });
      expect(ok).toBe(true);
    });
    expect(runtime.store.get().state).toEqual({ a: 1, b: 2 });
    expect(server.calls.at(-1)?.url).toBe("/ui/actions/event.track");
  });

  it("stops at the first action that fails", async () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    const { runtime } = await renderApp(() => envelope([], { state: {} }));
    await act(async () => {
      const ok = await runtime.run({
        type: "sequence",
        actions: [
          { type: "set_state", path: "/a", value: 1 },
          { type: "open_overlay", id: "missing" },
          { type: "set_state", path: "/b", value: 2 },
        ],
      });
      expect(ok).toBe(false);
    });
    expect(runtime.store.get().state).toEqual({ a: 1 });
  });
});
