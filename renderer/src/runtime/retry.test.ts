import { describe, expect, it } from "vitest";
import { envelopeSchema } from "../schema/envelope";
import { envelope } from "../test/harness";
import { retryKeepingInput } from "./retry";
import type { Router } from "./router";
import { createStore } from "./store";

const screen = (id: string, state: Record<string, unknown>) =>
  envelopeSchema.parse(envelope([], { screen: { id }, state }));

/** A router whose refresh shows `next`, as a successful reload of the screen would. */
function routerShowing(store: ReturnType<typeof createStore>, next: ReturnType<typeof screen> | null): Router {
  return {
    refresh: () => {
      if (next === null) return Promise.resolve(false);
      store.showScreen(next, Date.now());
      return Promise.resolve(true);
    },
  } as unknown as Router;
}

describe("retryKeepingInput", () => {
  it("puts what was typed back over the same screen loaded again, keeping the server's other fields", async () => {
    const store = createStore();
    store.showScreen(screen("studio-edit", { form: { title: "Old", body: "Old body" }, doc: { kind: "news" } }), Date.now());
    store.setValue("/form/title", "A new title typed but not saved");
    store.setNotice("Something went wrong.");
    const fresh = screen("studio-edit", { form: { title: "Old", body: "Old body", revision: "3" }, doc: { kind: "news" } });
    expect(await retryKeepingInput({ store, router: routerShowing(store, fresh) })).toBe(true);
    expect(store.get().state).toEqual({
      form: { title: "A new title typed but not saved", body: "Old body", revision: "3" },
      doc: { kind: "news" },
    });
    expect(store.get().notice).toBeNull();
  });

  it("takes another screen as it comes", async () => {
    const store = createStore();
    store.showScreen(screen("studio-edit", { form: { title: "Typed" } }), Date.now());
    const signIn = screen("sign-in", { form: { email: "" } });
    await retryKeepingInput({ store, router: routerShowing(store, signIn) });
    expect(store.get().state).toEqual({ form: { email: "" } });
  });

  it("keeps the input where it is when the reload fails too", async () => {
    const store = createStore();
    store.showScreen(screen("studio-edit", { form: { title: "Old" } }), Date.now());
    store.setValue("/form/title", "Typed");
    expect(await retryKeepingInput({ store, router: routerShowing(store, null) })).toBe(false);
    expect(store.get().state).toEqual({ form: { title: "Typed" } });
  });
});
