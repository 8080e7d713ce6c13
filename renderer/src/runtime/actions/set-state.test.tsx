import { act, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderNode } from "../../test/harness";

describe("set_state", () => {
  it("writes into the screen state and re-renders what depends on it", async () => {
    const { runtime } = await renderNode(
      { type: "text", text: "Shown for other", visible: { eq: [{ path: "/form/reason" }, "other"] } },
      { state: { form: { reason: null } } },
    );
    expect(screen.queryByText("Shown for other")).toBeNull();
    await act(async () => {
      expect(await runtime.run({ type: "set_state", path: "/form/reason", value: "other" })).toBe(true);
    });
    expect(screen.getByText("Shown for other")).toBeTruthy();
    expect(runtime.store.get().state).toEqual({ form: { reason: "other" } });
  });

  it("creates missing objects on the way", async () => {
    const { runtime } = await renderNode({ type: "divider" });
    await act(() => runtime.run({ type: "set_state", path: "/ui/step", value: 2 }));
    expect(runtime.store.get().state).toEqual({ ui: { step: 2 } });
  });
});
