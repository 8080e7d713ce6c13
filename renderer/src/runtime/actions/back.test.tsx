import { act, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { envelope, renderApp, settle } from "../../test/harness";

const screens = {
  "/dashboard": envelope([{ type: "text", text: "Dashboard" }]),
  "/dashboard/news": envelope([{ type: "text", text: "News" }]),
  "/elsewhere": envelope([{ type: "text", text: "Elsewhere" }]),
};

describe("back", () => {
  it("goes back in history when the previous entry is ours", async () => {
    const { runtime } = await renderApp(screens, { url: "/dashboard" });
    await act(() => runtime.run({ type: "navigate", to: "/dashboard/news" }));
    expect(screen.getByText("News")).toBeTruthy();
    await act(async () => {
      await runtime.run({ type: "back", fallback: "/elsewhere" });
      await new Promise((resolve) => setTimeout(resolve, 20));
    });
    await settle();
    expect(await screen.findByText("Dashboard")).toBeTruthy();
    expect(window.location.pathname).toBe("/dashboard");
  });

  it("navigates to the fallback when there is no previous entry of ours", async () => {
    const { runtime } = await renderApp(screens, { url: "/dashboard/news" });
    await act(() => runtime.run({ type: "back", fallback: "/elsewhere" }));
    expect(screen.getByText("Elsewhere")).toBeTruthy();
  });

  it("falls back to /dashboard by default", async () => {
    const { runtime } = await renderApp(screens, { url: "/dashboard/news" });
    await act(() => runtime.run({ type: "back" }));
    expect(screen.getByText("Dashboard")).toBeTruthy();
    expect(window.location.pathname).toBe("/dashboard");
  });
});
