import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderNode } from "../test/harness";

describe("textarea", () => {
  it("is a labelled multi-line input bound to the state with a counter", async () => {
    const { user, runtime } = await renderNode(
      { type: "textarea", id: "review", bind: "/review", label: "Your review", rows: 5, maxLength: 200 },
      { state: { review: "" } },
    );
    const field = screen.getByLabelText<HTMLTextAreaElement>("Your review");
    expect(field.tagName).toBe("TEXTAREA");
    expect(field.rows).toBe(5);
    expect(field.maxLength).toBe(200);
    await user.type(field, "Great");
    expect(runtime.store.get().state).toEqual({ review: "Great" });
    expect(screen.getByText("5/200")).toBeTruthy();
  });
});
