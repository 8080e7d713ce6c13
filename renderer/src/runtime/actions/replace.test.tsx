import { act, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { envelope, renderApp } from "../../test/harness";

describe("replace", () => {
  it("replaces the history entry and fetches that screen", async () => {
    const { runtime } = await renderApp({
      "/": envelope([{ type: "text", text: "Home" }]),
      "/sign-in": envelope([{ type: "text", text: "Sign in" }]),
    });
    const length = window.history.length;
    await act(() => runtime.run({ type: "replace", to: "/sign-in" }));
    expect(screen.getByText("Sign in")).toBeTruthy();
    expect(window.location.pathname).toBe("/sign-in");
    expect(window.history.length).toBe(length);
  });

  it("follows a guard's redirect answered for a screen request", async () => {
    await renderApp(
      {
        "/dashboard": { effects: [{ type: "replace", to: "/sign-in" }] },
        "/sign-in": envelope([{ type: "text", text: "Please sign in" }]),
      },
      { url: "/dashboard" },
    );
    expect(await screen.findByText("Please sign in")).toBeTruthy();
    expect(window.location.pathname).toBe("/sign-in");
  });
});
