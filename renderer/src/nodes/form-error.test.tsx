import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderNode } from "../test/harness";

const form = {
  type: "form",
  id: "recover",
  submit: { type: "submit", action: "access.recover" },
  children: [
    { type: "form_error", form: "recover" },
    { type: "button", label: "Send email", action: { type: "submit", action: "access.recover", form: "recover" } },
  ],
};

describe("form_error", () => {
  it("renders nothing until the form has an error, then announces it", async () => {
    const { user } = await renderNode(form, {}, {
      onAction: () => ({ status: 429, body: { errors: { form: "Please try again later." } } }),
    });
    expect(screen.queryByRole("alert")).toBeNull();
    await user.click(screen.getByRole("button", { name: "Send email" }));
    expect((await screen.findByRole("alert")).textContent).toBe("Please try again later.");
  });

  it("says 'Something went wrong' when the network fails", async () => {
    const { user } = await renderNode(form, {}, { onAction: () => "network-error" });
    await user.click(screen.getByRole("button", { name: "Send email" }));
    expect((await screen.findByRole("alert")).textContent).toBe("Something went wrong");
  });
});
