import { screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { renderNodes } from "../test/harness";

describe("per-node fallback", () => {
  it("renders an unknown node's fallback and logs its JSON Pointer", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => undefined);
    await renderNodes([
      { type: "text", text: "First" },
      { type: "hologram", fallback: { type: "text", text: "Plain fallback" } },
      { type: "text", text: "Third" },
    ]);
    expect(screen.getByText("First")).toBeTruthy();
    expect(screen.getByText("Plain fallback")).toBeTruthy();
    expect(screen.getByText("Third")).toBeTruthy();
    expect(error).toHaveBeenCalledWith(expect.stringContaining("/screen/children/1"));
  });

  it("renders nothing for an invalid node without a valid fallback", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => undefined);
    await renderNodes([
      { type: "badge" },
      { type: "badge", label: "ok" },
      { type: "text", text: 42, fallback: { type: "text" } },
    ]);
    expect(screen.getByText("ok")).toBeTruthy();
    const messages = error.mock.calls.map((call) => String(call[0]));
    expect(messages.some((message) => message.includes("/screen/children/0"))).toBe(true);
    expect(messages.some((message) => message.includes("/screen/children/2/fallback"))).toBe(true);
  });

  it("keeps a nested invalid node from failing its parent", async () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    await renderNodes([
      { type: "card", children: [{ type: "text", text: "Kept" }, { type: "stat_tile", label: "No value" }] },
    ]);
    expect(screen.getByText("Kept")).toBeTruthy();
    expect(screen.queryByText("No value")).toBeNull();
  });
});
