import { screen, waitFor } from "@testing-library/react";
import { startTransition } from "react";
import { createRoot } from "react-dom/client";
import { describe, expect, it } from "vitest";
import { App } from "../app";
import { envelope, fakeServer, makeEngine, renderNode } from "../test/harness";

const signIn = {
  type: "form",
  id: "signIn",
  submit: { type: "submit", action: "session.sign_in", form: "signIn" },
  children: [
    {
      type: "text_input",
      id: "email",
      bind: "/form/email",
      label: "Email address",
      kind: "email",
      rules: [{ kind: "email", message: "Wrong email format" }],
    },
    {
      type: "text_input",
      id: "password",
      bind: "/form/password",
      label: "Password",
      kind: "password",
      rules: [{ kind: "min_length", value: 6, message: "Min 6 symbols" }],
    },
    { type: "text_input", id: "nickname", bind: "/form/nickname", label: "Nickname", visible: false },
    { type: "form_error", form: "signIn" },
    { type: "button", label: "Sign in", action: { type: "submit", action: "session.sign_in", form: "signIn" } },
  ],
};
const state = { form: { email: "", password: "", nickname: "ghost" } };

describe("form", () => {
  it("validates on submit, shows field errors, and focuses the first invalid field", async () => {
    const { user, server } = await renderNode(signIn, { state });
    await user.click(screen.getByRole("button", { name: "Sign in" }));
    expect(screen.getByText("Wrong email format")).toBeTruthy();
    expect(screen.getByText("Min 6 symbols")).toBeTruthy();
    expect(document.activeElement).toBe(screen.getByLabelText("Email address"));
    expect(server.calls.filter((call) => call.method === "POST")).toHaveLength(0);
  });

  it("clears every error of the form on any edit", async () => {
    const { user } = await renderNode(signIn, { state });
    await user.click(screen.getByRole("button", { name: "Sign in" }));
    await user.type(screen.getByLabelText("Password"), "x");
    expect(screen.queryByText("Wrong email format")).toBeNull();
    expect(screen.queryByText("Min 6 symbols")).toBeNull();
  });

  it("posts only visible inputs with the path and the CSRF token, on Enter too", async () => {
    const { user, server } = await renderNode(signIn, { state });
    await user.type(screen.getByLabelText("Email address"), "ann@example.com");
    await user.type(screen.getByLabelText("Password"), "secret1{Enter}");
    const posts = server.calls.filter((call) => call.method === "POST");
    expect(posts).toHaveLength(1);
    expect(posts[0]?.url).toBe("/ui/actions/session.sign_in");
    expect(posts[0]?.body).toEqual({ values: { email: "ann@example.com", password: "secret1" }, path: "/" });
    expect(posts[0]?.headers["X-CSRF-Token"]).toBe("token-1");
  });

  it("shows the server's field and form errors", async () => {
    const { user } = await renderNode(signIn, { state: { form: { email: "ann@example.com", password: "secret1" } } }, {
      onAction: () => ({
        status: 422,
        body: { errors: { fields: { password: "The password is invalid." }, form: "Please check your details" } },
      }),
    });
    await user.click(screen.getByRole("button", { name: "Sign in" }));
    expect(await screen.findByText("The password is invalid.")).toBeTruthy();
    expect(screen.getAllByRole("alert").map((alert) => alert.textContent)).toEqual([
      "The password is invalid.",
      "Please check your details",
    ]);
    expect(screen.getByText("Please check your details")).toBeTruthy();
  });

  it("sends what the fields hold when its button is pressed as the form appears, before React's passive effects", async () => {
    // React puts its handlers on the page when it commits a screen (or adopts the server's
    // markup), and runs passive effects a task later: a tap in between must find the fields.
    const server = fakeServer((call) =>
      call.method === "POST" ? { body: {} } : { body: envelope([signIn], { state: { form: { email: "ann@example.com", password: "secret1" } } }) },
    );
    const runtime = makeEngine(server);
    await runtime.start();
    const container = document.createElement("div");
    document.body.append(container);
    let pressedBeforeEffects = false;
    const observer = new MutationObserver(() => {
      const button = container.querySelector<HTMLButtonElement>("button[type=submit]");
      if (button === null) return;
      observer.disconnect();
      pressedBeforeEffects = true;
      button.click();
    });
    observer.observe(container, { childList: true, subtree: true });
    const root = createRoot(container);
    startTransition(() => root.render(<App runtime={runtime} />));
    await waitFor(() => expect(server.calls.filter((call) => call.method === "POST")).toHaveLength(1));
    expect(pressedBeforeEffects).toBe(true);
    expect(server.calls.find((call) => call.method === "POST")?.body).toEqual({
      values: { email: "ann@example.com", password: "secret1" },
      path: "/",
    });
    root.unmount();
    container.remove();
  });
  it("keeps each keystroke typed as the field appears, before React's passive effects", async () => {
    // A field reads the state through a subscription React makes in a passive effect, a task
    // after the commit. A keystroke in between changes the state but renders nothing, and React
    // then puts back the value it last rendered: the first letter typed was lost (issue #21).
    const runtime = makeEngine(fakeServer(() => ({ body: envelope([signIn], { state: { form: { email: "", password: "" } } }) })));
    await runtime.start();
    const container = document.createElement("div");
    document.body.append(container);
    const setNativeValue = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value")?.set;
    const type = (input: HTMLInputElement, letter: string): void => {
      setNativeValue?.call(input, input.value + letter);
      input.dispatchEvent(new Event("input", { bubbles: true }));
    };
    let typedBeforeEffects = "";
    const observer = new MutationObserver(() => {
      const email = container.querySelector<HTMLInputElement>("input[name=email]");
      if (email === null) return;
      observer.disconnect();
      type(email, "t");
      type(email, "y");
      typedBeforeEffects = email.value;
    });
    observer.observe(container, { childList: true, subtree: true });
    const root = createRoot(container);
    startTransition(() => root.render(<App runtime={runtime} />));
    await waitFor(() => expect(typedBeforeEffects).not.toBe(""));
    expect(typedBeforeEffects).toBe("ty");
    await waitFor(() => expect(runtime.store.get().state).toMatchObject({ form: { email: "ty" } }));
    expect(container.querySelector<HTMLInputElement>("input[name=email]")?.value).toBe("ty");
    root.unmount();
    container.remove();
  });
});
