import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { envelope, renderApp, spyWindow } from "../../test/harness";

describe("open_url", () => {
  it("leaves the app in the same window", async () => {
    const spy = spyWindow();
    const { runtime } = await renderApp(() => envelope([]), { window: spy.window });
    expect(await runtime.run({ type: "open_url", url: "https://billing.example/quiz?quiz=true" })).toBe(true);
    expect(spy.assign).toHaveBeenCalledWith("https://billing.example/quiz?quiz=true");
  });

  it("opens a new tab without opener or referrer", async () => {
    const spy = spyWindow();
    const { runtime } = await renderApp(() => envelope([]), { window: spy.window });
    await runtime.run({ type: "open_url", url: "mailto:support@example.com", newWindow: true });
    expect(spy.open).toHaveBeenCalledWith("mailto:support@example.com", "_blank", "noopener,noreferrer");
  });

  it("renders as a link with target=_blank rel=noopener noreferrer", async () => {
    await renderApp(() =>
      envelope([{ type: "link", label: "Privacy Policy", action: { type: "open_url", url: "/privacy", newWindow: true } }]),
    );
    const link = screen.getByRole("link", { name: "Privacy Policy" });
    expect(link.getAttribute("href")).toBe("/privacy");
    expect(link.getAttribute("target")).toBe("_blank");
    expect(link.getAttribute("rel")).toBe("noopener noreferrer");
  });

  it("refuses other schemes", async () => {
    const spy = spyWindow();
    const { runtime } = await renderApp(() => envelope([]), { window: spy.window });
    expect(await runtime.run({ type: "open_url", url: "javascript:alert(1)" })).toBe(false);
    expect(spy.assign).not.toHaveBeenCalled();
  });
});
