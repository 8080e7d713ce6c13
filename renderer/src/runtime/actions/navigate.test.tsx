import { act, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { envelope, renderApp } from "../../test/harness";

describe("navigate", () => {
  it("pushes a history entry, fetches that screen and scrolls to the top", async () => {
    const { runtime, server } = await renderApp({
      "/": envelope([{ type: "text", text: "Home" }]),
      "/news?page=2": envelope([{ type: "text", text: "News page 2" }]),
    });
    const length = window.history.length;
    await act(async () => {
      expect(await runtime.run({ type: "navigate", to: "/news?page=2" })).toBe(true);
    });
    expect(screen.getByText("News page 2")).toBeTruthy();
    expect(window.location.pathname + window.location.search).toBe("/news?page=2");
    expect(window.history.length).toBe(length + 1);
    expect(server.calls.at(-1)?.url).toBe("/ui/screen?path=%2Fnews%3Fpage%3D2");
    expect(window.scrollTo).toHaveBeenCalledWith(0, 0);
  });

  it("is a real link wherever a node holds it", async () => {
    await renderApp(() => envelope([{ type: "button", label: "Go", action: { type: "navigate", to: "/x" } }]));
    expect(screen.getByRole("link", { name: "Go" }).getAttribute("href")).toBe("/x");
  });

  it("refuses a path that would leave the origin", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const { runtime, server } = await renderApp(() => envelope([]));
    expect(await runtime.run({ type: "navigate", to: "//evil.example/" })).toBe(false);
    expect(server.calls).toHaveLength(1);
    expect(error).toHaveBeenCalled();
  });
});
