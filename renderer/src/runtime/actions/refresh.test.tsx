import { act, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { envelope, renderApp } from "../../test/harness";

describe("refresh", () => {
  it("fetches the current screen again without a history entry", async () => {
    let count = 0;
    const { runtime, server } = await renderApp(() => {
      count += 1;
      return envelope([{ type: "text", text: `Version ${count}` }]);
    });
    const length = window.history.length;
    await act(async () => {
      expect(await runtime.run({ type: "refresh" })).toBe(true);
    });
    expect(screen.getByText("Version 2")).toBeTruthy();
    expect(server.calls.map((call) => call.url)).toEqual(["/ui/screen?path=%2F", "/ui/screen?path=%2F"]);
    expect(window.history.length).toBe(length);
  });
});
