import { afterEach, describe, expect, it } from "vitest";
import { endServerMarkup, takeHeldSubmit, takeOverServerMarkup, watchServerMarkup } from "./prerendered";
import { createStore } from "./store";

const SERVER_FORM = `<div class="app"><main id="main"><form method="post">
  <input id="g1" name="email" data-bind="/form/email" value="">
  <input id="g2" name="password" data-bind="/form/password" value="">
  <button type="submit">Sign in</button></form></main></div>`;

/** A page whose root holds the server's markup. */
function serverPage(prerendered = true): HTMLElement {
  const root = document.createElement("div");
  root.id = "root";
  if (prerendered) root.setAttribute("data-prerendered", "");
  root.innerHTML = SERVER_FORM;
  document.body.append(root);
  return root;
}

function input(root: HTMLElement, name: string): HTMLInputElement {
  const found = root.querySelector<HTMLInputElement>(`input[name="${name}"]`);
  if (found === null) throw new Error(`no ${name} field`);
  return found;
}

function form(root: HTMLElement): HTMLFormElement {
  const found = root.querySelector("form");
  if (found === null) throw new Error("no form");
  return found;
}

function submit(root: HTMLElement): Event {
  const sent = new Event("submit", { bubbles: true, cancelable: true });
  form(root).dispatchEvent(sent);
  return sent;
}

function type(field: HTMLInputElement, text: string): void {
  field.value = text;
  field.dispatchEvent(new Event("input", { bubbles: true }));
}

afterEach(() => {
  endServerMarkup();
  document.getElementById("root")?.remove();
});

describe("the server's markup until the app mounts", () => {
  it("puts the text typed into it into the state the fields are bound to, and what follows too", () => {
    const root = serverPage();
    watchServerMarkup(root);
    const store = createStore();
    type(input(root, "email"), "someone@exam");
    takeOverServerMarkup(store);
    expect(store.get().state).toEqual({ form: { email: "someone@exam", password: "" } });
    // Typed while React adopts the markup.
    type(input(root, "email"), "someone@example.com");
    expect(store.get().state).toEqual({ form: { email: "someone@example.com", password: "" } });
  });

  it("keeps a form from being sent by the browser, and hands it to the app's form once", () => {
    const root = serverPage();
    watchServerMarkup(root);
    // Not sent by the browser: the fields would go to the page's own address.
    expect(submit(root).defaultPrevented).toBe(true);
    takeOverServerMarkup(createStore());
    expect(takeHeldSubmit(form(root))).toBe(true);
    expect(takeHeldSubmit(form(root))).toBe(false);
  });

  it("drops a form sent and not claimed once the app's first screen has mounted", () => {
    const root = serverPage();
    watchServerMarkup(root);
    submit(root);
    takeOverServerMarkup(createStore());
    endServerMarkup();
    expect(takeHeldSubmit(form(root))).toBe(false);
    // The app's forms are the app's again: the browser event is left to them.
    expect(submit(root).defaultPrevented).toBe(false);
  });

  it("leaves a page the server did not draw alone", () => {
    const root = serverPage(false);
    watchServerMarkup(root);
    const store = createStore();
    expect(submit(root).defaultPrevented).toBe(false);
    type(input(root, "email"), "typed@example.com");
    takeOverServerMarkup(store);
    expect(store.get().state).toEqual({});
    expect(takeHeldSubmit(form(root))).toBe(false);
  });
});
