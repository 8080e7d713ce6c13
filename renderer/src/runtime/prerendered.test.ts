import { afterEach, describe, expect, it } from "vitest";
import { endServerMarkup, takeHeldSubmit, takeOverServerMarkup, watchServerMarkup } from "./prerendered";
import { createStore } from "./store";

const SERVER_FORM = `<div class="app"><main id="main"><form method="post">
  <input id="g1" name="email" data-bind="/form/email" value="">
  <input id="g2" name="password" data-bind="/form/password" value="">
  <button type="submit">Sign in</button></form>
  <button type="button" id="menu"><span>Menu</span></button></main></div>`;

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
    // Not sent by the browser: the fields would go to the page's own address. Nor seen by React
    // (its listeners are on the root) while it adopts the markup.
    let seenByRoot = false;
    root.addEventListener("submit", () => (seenByRoot = true));
    expect(submit(root).defaultPrevented).toBe(true);
    expect(seenByRoot).toBe(false);
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

  it("presses a button pressed before React adopted the markup again once the app has mounted", () => {
    const root = serverPage();
    watchServerMarkup(root);
    const menu = root.querySelector<HTMLButtonElement>("#menu");
    if (menu === null) throw new Error("no menu button");
    let presses = 0;
    // On the label inside the button, as a tap lands.
    menu.querySelector("span")?.dispatchEvent(new MouseEvent("click", { bubbles: true }));
    expect(presses).toBe(0);
    takeOverServerMarkup(createStore());
    menu.addEventListener("click", () => presses++);
    endServerMarkup();
    expect(presses).toBe(1);
    // Once: the app's own handlers answer from now on.
    endServerMarkup();
    expect(presses).toBe(1);
  });

  it("leaves a press made while React adopts the markup, and a form's submit button, to React and the form", () => {
    const root = serverPage();
    watchServerMarkup(root);
    let presses = 0;
    root.querySelector("button[type=submit]")?.dispatchEvent(new MouseEvent("click", { bubbles: true }));
    takeOverServerMarkup(createStore());
    const menu = root.querySelector<HTMLButtonElement>("#menu");
    menu?.addEventListener("click", () => presses++);
    menu?.dispatchEvent(new MouseEvent("click", { bubbles: true }));
    expect(presses).toBe(1);
    endServerMarkup();
    expect(presses).toBe(1);
  });

  it("does not press a button the app drew anew in place of the one pressed", () => {
    const root = serverPage();
    watchServerMarkup(root);
    root.querySelector("#menu")?.dispatchEvent(new MouseEvent("click", { bubbles: true }));
    takeOverServerMarkup(createStore());
    root.querySelector("#menu")?.remove();
    expect(() => endServerMarkup()).not.toThrow();
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
