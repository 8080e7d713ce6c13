import { act } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { envelope, renderApp } from "../../test/harness";

describe("after", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("runs its action after the delay", async () => {
    const { engine } = await renderApp(() => envelope([], { state: { ui: { step: 1 } } }));
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    let done: Promise<boolean> | undefined;
    act(() => {
      done = engine.run({ type: "after", ms: 2500, then: { type: "set_state", path: "/ui/step", value: 2 } });
    });
    await act(() => vi.advanceTimersByTimeAsync(2400));
    expect(engine.store.get().state).toEqual({ ui: { step: 1 } });
    await act(() => vi.advanceTimersByTimeAsync(100));
    expect(await done).toBe(true);
    expect(engine.store.get().state).toEqual({ ui: { step: 2 } });
  });

  it("is cancelled when the screen changes", async () => {
    const { engine } = await renderApp(() => envelope([], { state: { ui: { step: 1 } } }));
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    let done: Promise<boolean> | undefined;
    act(() => {
      done = engine.run({ type: "after", ms: 1000, then: { type: "set_state", path: "/ui/step", value: 9 } });
    });
    vi.useRealTimers();
    await act(() => engine.router.refresh());
    expect(await done).toBe(false);
    expect(engine.store.get().state).toEqual({ ui: { step: 1 } });
  });
});
