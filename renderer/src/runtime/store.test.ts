import { describe, expect, it, vi } from "vitest";
import { envelopeSchema } from "../schema/envelope";
import { envelope } from "../test/harness";
import { createStore } from "./store";

const parsed = (extra: Parameters<typeof envelope>[1] = {}) => envelopeSchema.parse(envelope([], extra));

describe("store", () => {
  it("starts loading with no screen", () => {
    const store = createStore();
    expect(store.get().loading).toBe(true);
    expect(store.get().screen).toBeNull();
  });

  it("shows a screen: seeds the state, opens its initial overlays, clears errors, measures clock skew", () => {
    const store = createStore();
    store.setErrors({ email: "bad" }, { id: "signIn", message: "no" });
    const env = parsed({
      state: { form: { email: "" } },
      overlays: { offer: { type: "dialog", id: "offer", children: [] } },
      open: ["offer", "missing"],
    });
    store.showScreen(env, Date.parse("2026-03-01T11:00:00Z"));
    const view = store.get();
    expect(view.state).toEqual({ form: { email: "" } });
    expect(view.overlays).toEqual(["offer"]);
    expect(view.fieldErrors).toEqual({});
    expect(view.formErrors).toEqual({});
    expect(view.loading).toBe(false);
    expect(view.screen?.clockOffset).toBe(-3_600_000);
    const key = view.screen?.key ?? 0;
    store.showScreen(env, 0);
    expect(store.get().screen?.key).toBe(key + 1);
  });

  it("trusts the client's clock when an answer gave no server time", () => {
    const store = createStore();
    const env = parsed();
    delete env.meta.serverNow;
    store.showScreen(env, Date.parse("2026-03-01T11:00:00Z"));
    expect(store.get().screen?.clockOffset).toBe(0);
  });

  it("writes values immutably and notifies subscribers", () => {
    const store = createStore();
    store.showScreen(parsed({ state: { form: { email: "" } } }), 0);
    const listener = vi.fn();
    const unsubscribe = store.subscribe(listener);
    const before = store.get().state;
    store.setValue("/form/email", "ann@example.com");
    expect(store.get().state).toEqual({ form: { email: "ann@example.com" } });
    expect(before).toEqual({ form: { email: "" } });
    expect(listener).toHaveBeenCalledTimes(1);
    unsubscribe();
    store.setValue("/form/email", "x");
    expect(listener).toHaveBeenCalledTimes(1);
  });

  it("keeps field errors by input and form errors by form, and clears them", () => {
    const store = createStore();
    store.setErrors({ email: "Wrong email format", password: "Min 6 symbols" }, { id: "signIn", message: "Nope" });
    expect(store.get().fieldErrors).toEqual({ email: "Wrong email format", password: "Min 6 symbols" });
    expect(store.get().formErrors).toEqual({ signIn: "Nope" });
    store.clearErrors(["email", "password"], "signIn");
    expect(store.get().fieldErrors).toEqual({});
    expect(store.get().formErrors).toEqual({});
  });

  it("puts a form error without a form in the notice", () => {
    const store = createStore();
    store.setErrors({}, { id: undefined, message: "Something went wrong" });
    expect(store.get().notice).toBe("Something went wrong");
  });

  it("stacks overlays and closes the topmost by default", () => {
    const store = createStore();
    store.openOverlay("menu");
    store.openOverlay("logout");
    expect(store.get().overlays).toEqual(["menu", "logout"]);
    expect(store.closeOverlay()).toBe("logout");
    store.openOverlay("logout");
    expect(store.closeOverlay("menu")).toBe("menu");
    expect(store.get().overlays).toEqual(["logout"]);
    expect(store.closeOverlay("nope")).toBeUndefined();
  });

  it("blocks a second submit of the same action while one is in flight", () => {
    const store = createStore();
    expect(store.beginSubmit("session.sign_in", "/screen/children/0")).toBe(true);
    expect(store.beginSubmit("session.sign_in", "/screen/children/1")).toBe(false);
    expect(store.beginSubmit("event.other", "/x")).toBe(true);
    expect(store.get().submitting).toEqual({ "session.sign_in": "/screen/children/0", "event.other": "/x" });
    store.endSubmit("session.sign_in");
    expect(store.beginSubmit("session.sign_in", "/y")).toBe(true);
  });
});
