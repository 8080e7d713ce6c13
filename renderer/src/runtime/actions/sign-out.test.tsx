import { act, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { envelope, renderApp } from "../../test/harness";

describe("sign_out", () => {
  it("posts session.sign_out and runs its effects", async () => {
    const { runtime, server } = await renderApp(
      {
        "/dashboard": envelope([{ type: "text", text: "Dashboard" }]),
        "/sign-in": envelope([{ type: "text", text: "Signed out" }]),
      },
      { url: "/dashboard", onAction: () => ({ body: { effects: [{ type: "replace", to: "/sign-in" }] } }) },
    );
    await act(() => runtime.run({ type: "sign_out" }));
    const post = server.calls.find((call) => call.method === "POST");
    expect(post?.url).toBe("/ui/actions/session.sign_out");
    expect(post?.body).toEqual({ values: {}, path: "/dashboard" });
    expect(post?.headers["X-CSRF-Token"]).toBe("token-1");
    expect(screen.getByText("Signed out")).toBeTruthy();
  });
});
