import { act, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { envelope, renderApp, renderNode } from "../../test/harness";

const form = {
  type: "form",
  id: "review",
  submit: { type: "submit", action: "cancel.review", form: "review" },
  children: [
    {
      type: "textarea",
      id: "feedback",
      bind: "/form/feedback",
      label: "Feedback",
      rules: [{ kind: "required", message: "Tell us more" }],
    },
    { type: "rating", id: "stars", bind: "/form/stars", label: "Stars", visible: { path: "/ui/rate" } },
  ],
};

describe("submit", () => {
  it("validates the form and does not post when invalid", async () => {
    const { runtime, server } = await renderNode(form, { state: { form: { feedback: "" }, ui: { rate: false } } });
    await act(async () => {
      expect(await runtime.run({ type: "submit", action: "cancel.review", form: "review" })).toBe(false);
    });
    expect(screen.getByText("Tell us more")).toBeTruthy();
    expect(server.calls.filter((call) => call.method === "POST")).toHaveLength(0);
  });

  it("skips validation with validate: none", async () => {
    const { runtime, server } = await renderNode(form, { state: { form: { feedback: "" }, ui: { rate: false } } });
    await act(() => runtime.run({ type: "submit", action: "cancel.skip", form: "review", validate: "none" }));
    expect(server.calls.at(-1)?.body).toEqual({ values: { feedback: "" }, path: "/" });
  });

  it("posts visible inputs by id plus include pointers by pointer", async () => {
    const { runtime, server } = await renderNode(form, {
      state: { form: { feedback: "Great", stars: 4 }, ui: { rate: true }, plan: { id: "p1" } },
    });
    await act(() => runtime.run({ type: "submit", action: "cancel.review", form: "review", include: ["/plan/id", "/missing"] }));
    expect(server.calls.at(-1)?.url).toBe("/ui/actions/cancel.review");
    expect(server.calls.at(-1)?.body).toEqual({
      values: { feedback: "Great", stars: 4, "/plan/id": "p1", "/missing": null },
      path: "/",
    });
  });

  it("sends what the fields show, even text their state missed (typed while the app adopted the page)", async () => {
    const { runtime, server } = await renderNode(form, { state: { form: { feedback: "" }, ui: { rate: false } } });
    // As text typed before React's handlers were attached: in the field, not in the state.
    const field = screen.getByLabelText("Feedback");
    if (!(field instanceof HTMLTextAreaElement)) throw new Error("no textarea");
    field.value = "Typed early";
    await act(() => runtime.run({ type: "submit", action: "cancel.review", form: "review" }));
    expect(screen.queryByText("Tell us more")).toBeNull();
    expect(server.calls.at(-1)?.body).toEqual({ values: { feedback: "Typed early" }, path: "/" });
  });

  it("replaces the screen with an envelope answer", async () => {
    const { runtime } = await renderNode(form, { state: { form: { feedback: "ok" } } }, {
      onAction: () => ({ body: envelope([{ type: "text", text: "Thanks!" }], { screen: { title: "Done" } }) }),
    });
    await act(() => runtime.run({ type: "submit", action: "cancel.review", form: "review" }));
    expect(screen.getByText("Thanks!")).toBeTruthy();
    expect(document.title).toBe("Done · Glimpse");
  });

  it("runs the effects it gets and succeeds", async () => {
    const { runtime } = await renderApp(
      {
        "/": envelope([form], { state: { form: { feedback: "ok" } } }),
        "/done": envelope([{ type: "text", text: "All done" }]),
      },
      { onAction: () => ({ body: { effects: [{ type: "navigate", to: "/done" }] } }) },
    );
    await act(async () => {
      expect(await runtime.run({ type: "submit", action: "cancel.review", form: "review" })).toBe(true);
    });
    expect(screen.getByText("All done")).toBeTruthy();
  });

  it("fails with the server's errors", async () => {
    const { runtime } = await renderNode(form, { state: { form: { feedback: "ok" } } }, {
      onAction: () => ({ status: 422, body: { errors: { fields: { feedback: "Too rude" } } } }),
    });
    await act(async () => {
      expect(await runtime.run({ type: "submit", action: "cancel.review", form: "review" })).toBe(false);
    });
    expect(screen.getByText("Too rude")).toBeTruthy();
    expect(document.activeElement).toBe(screen.getByLabelText("Feedback"));
  });

  it("blocks a double submit of the same action", async () => {
    let release: (() => void) | undefined;
    const { runtime, server } = await renderNode(form, { state: { form: { feedback: "ok" } } }, {
      onAction: () => new Promise((resolve) => (release = () => resolve({ body: {} }))),
    });
    const action = { type: "submit", action: "cancel.review", form: "review" } as const;
    let first: Promise<boolean> | undefined;
    act(() => {
      first = runtime.run(action);
    });
    await act(async () => {
      expect(await runtime.run(action)).toBe(false);
    });
    release?.();
    await act(async () => {
      expect(await first).toBe(true);
    });
    expect(server.calls.filter((call) => call.method === "POST")).toHaveLength(1);
  });
});
