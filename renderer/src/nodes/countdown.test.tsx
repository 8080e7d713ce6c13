import { act, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { renderNode } from "../test/harness";
import { breakdown } from "./countdown";

const units = (): string[] =>
  [...screen.getByRole("timer").querySelectorAll(".countdown__value")].map((value) => value.textContent);

describe("countdown", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date", "setInterval", "clearInterval"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("splits a duration into months, days, hours, minutes and seconds", () => {
    const day = 86_400_000;
    expect(breakdown(31 * day + 3_723_000)).toEqual([
      { name: "months", value: 1 },
      { name: "days", value: 1 },
      { name: "hours", value: 1 },
      { name: "minutes", value: 2 },
      { name: "seconds", value: 3 },
    ]);
  });

  it("counts down by the server clock, ticking each second, then disappears and runs onExpire once", async () => {
    // The client clock is an hour ahead of the server: the countdown must not care.
    vi.setSystemTime(new Date("2026-03-01T11:00:00Z"));
    const { runtime } = await renderNode(
      {
        type: "countdown",
        label: "Next update in",
        endsAt: "2026-03-01T10:00:03Z",
        onExpire: { type: "set_state", path: "/expired", value: true },
      },
      { state: { expired: false } },
    );
    expect(screen.getByRole("timer", { name: "Next update in" })).toBeTruthy();
    expect(units()).toEqual(["00", "00", "00", "00", "03"]);
    expect(screen.getByText("seconds")).toBeTruthy();
    await act(() => vi.advanceTimersByTimeAsync(1000));
    expect(units()).toEqual(["00", "00", "00", "00", "02"]);
    await act(() => vi.advanceTimersByTimeAsync(2000));
    expect(screen.queryByRole("timer")).toBeNull();
    expect(runtime.store.get().state).toEqual({ expired: true });
    runtime.store.setValue("/expired", false);
    await act(() => vi.advanceTimersByTimeAsync(5000));
    expect(runtime.store.get().state).toEqual({ expired: false });
  });

  it("renders nothing and does not fire when it arrives already expired", async () => {
    vi.setSystemTime(new Date("2026-03-01T10:00:00Z"));
    const { runtime } = await renderNode(
      { type: "countdown", endsAt: "2026-03-01T09:00:00Z", onExpire: { type: "set_state", path: "/expired", value: true } },
      { state: { expired: false } },
    );
    expect(screen.queryByRole("timer")).toBeNull();
    expect(runtime.store.get().state).toEqual({ expired: false });
  });
});
