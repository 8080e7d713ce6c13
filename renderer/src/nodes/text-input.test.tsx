import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderNode } from "../test/harness";
import { inZone } from "./field-parts";

const input = {
  type: "text_input",
  id: "email",
  bind: "/form/email",
  label: "Email address",
  kind: "email",
  placeholder: "Enter your email address",
  autocomplete: "email",
  rules: [{ kind: "required", message: "Required" }],
};

describe("text_input", () => {
  it("is labelled, bound to the state and typed", async () => {
    const { user, runtime } = await renderNode(input, { state: { form: { email: "a" } } });
    const field = screen.getByLabelText<HTMLInputElement>("Email address");
    expect(field.type).toBe("email");
    expect(field.placeholder).toBe("Enter your email address");
    expect(field.autocomplete).toBe("email");
    expect(field.value).toBe("a");
    await user.type(field, "nn");
    expect(runtime.store.get().state).toEqual({ form: { email: "ann" } });
  });

  it("marks an error with aria-invalid and aria-describedby, announced as an alert", async () => {
    const { runtime } = await renderNode(input, { state: { form: { email: "" } } });
    await runtime.run({ type: "submit", action: "x.y", form: undefined });
    const field = screen.getByLabelText("Email address");
    expect(field.getAttribute("aria-invalid")).toBeNull();
    runtime.store.setErrors({ email: "Wrong email format" });
    const error = await screen.findByRole("alert");
    expect(error.textContent).toBe("Wrong email format");
    expect(field.getAttribute("aria-invalid")).toBe("true");
    expect(field.getAttribute("aria-describedby")).toBe(error.id);
  });

  it("lets a password be shown", async () => {
    const { user } = await renderNode({ type: "text_input", id: "password", bind: "/password", label: "Password", kind: "password" });
    const field = screen.getByLabelText<HTMLInputElement>("Password");
    expect(field.type).toBe("password");
    const toggle = screen.getByRole("button", { name: "Show password" });
    await user.click(toggle);
    expect(field.type).toBe("text");
    expect(toggle.getAttribute("aria-pressed")).toBe("true");
  });

  it("can be disabled", async () => {
    await renderNode({ ...input, disabled: true });
    expect(screen.getByLabelText<HTMLInputElement>("Email address").disabled).toBe(true);
  });
});

describe("inZone", () => {
  it("shows a UTC date and time in another zone, and nothing for UTC or a partial value", () => {
    expect(inZone("2026-12-01T09:00", "Europe/Berlin", "en-US")).toBe("Dec 1, 2026, 10:00 AM");
    expect(inZone("2026-12-01T09:00:30", "America/New_York", "en-US")).toBe("Dec 1, 2026, 4:00 AM");
    expect(inZone("2026-12-01T09:00", "UTC", "en-US")).toBeUndefined();
    expect(inZone("2026-12-01", "Europe/Berlin", "en-US")).toBeUndefined();
    expect(inZone("", "Europe/Berlin", "en-US")).toBeUndefined();
  });
});
