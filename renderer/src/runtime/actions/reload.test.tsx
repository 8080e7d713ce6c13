import { describe, expect, it } from "vitest";
import { envelope, renderApp, spyWindow } from "../../test/harness";

describe("reload", () => {
  it("hard-reloads the page", async () => {
    const spy = spyWindow();
    const { runtime } = await renderApp(() => envelope([]), { window: spy.window });
    expect(await runtime.run({ type: "reload" })).toBe(true);
    expect(spy.reload).toHaveBeenCalledTimes(1);
  });
});
