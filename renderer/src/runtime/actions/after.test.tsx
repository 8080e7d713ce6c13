import { act } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { envelope, renderApp } from "../../test/harness";

describe("after", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("runs its action after the delay", async () => {
    const { runtime } = await renderApp(() => envelope([], { state: { ui: { step: 1 } } }));
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    let done: Promise<boolean> | undefined;
    act(() => {
      done = runtime.run({ type: "after", ms: 2500, then: { type: "set_state", path: "/ui/step", value: 2 } });
    });
    await act(() => vi.advanceTimersByTimeAsync(2400));
    expect(runtime.store.get().state).toEqual({ ui: { step: 1 } });
    await act(() => vi.advanceTimersByTimeAsync(100));
    expect(await done).toBe(true);
    expect(runtime.store.get().state).toEqual({ ui: { step: 2 } });
  });

  it("is cancelled when the screen changes", async () => {
    const { runtime } = await renderApp(() => envelope([], { state: { ui: { step: 1 } } }));
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    let done: Promise<boolean> | undefined;
    act(() => {
      done = runtime.run({ type: "after", ms: 1000, then: { type: "set_state", path: "/ui/step", value: 9 } });
    });
    vi.useRealTimers();
    await act(() => runtime.router.refresh());
    expect(await done).toBe(false);
    expect(runtime.store.get().state).toEqual({ ui: { step: 1 } });
  });
});
