import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderNode } from "../test/harness";

const logout = {
  type: "dialog",
  id: "logout",
  title: "Log out?",
  dismissible: true,
  closeLabel: "Close",
  onClose: { type: "set_state", path: "/closedBy", value: "dismiss" },
  children: [
    { type: "button", label: "Yes, log out", action: { type: "sign_out" } },
    { type: "button", label: "Not now", emphasis: "secondary", action: { type: "close_overlay" } },
  ],
};
const opener = { type: "button", label: "Log out", action: { type: "open_overlay", id: "logout" } };

describe("dialog", () => {
  it("opens as a labelled modal dialog with focus inside, hiding the page", async () => {
    const { user, container } = await renderNode(opener, { overlays: { logout } });
    await user.click(screen.getByRole("button", { name: "Log out" }));
    const dialog = screen.getByRole("dialog", { name: "Log out?" });
    expect(dialog.getAttribute("aria-modal")).toBe("true");
    expect(dialog.contains(document.activeElement)).toBe(true);
    expect(document.activeElement?.textContent).toBe("Yes, log out");
    expect(container.querySelector(".app")?.hasAttribute("inert")).toBe(true);
  });

  it("closes on Escape when dismissible, runs onClose and returns focus to the opener", async () => {
    const { user, runtime } = await renderNode(opener, { overlays: { logout }, state: {} });
    const button = screen.getByRole("button", { name: "Log out" });
    await user.click(button);
    await user.keyboard("{Escape}");
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(document.activeElement).toBe(button);
    await screen.findByRole("button", { name: "Log out" });
    expect(runtime.store.get().state).toEqual({ closedBy: "dismiss" });
  });

  it("closes with its close button and with close_overlay", async () => {
    const { user } = await renderNode(opener, { overlays: { logout } });
    await user.click(screen.getByRole("button", { name: "Log out" }));
    await user.click(screen.getByRole("button", { name: "Close" }));
    expect(screen.queryByRole("dialog")).toBeNull();
    await user.click(screen.getByRole("button", { name: "Log out" }));
    await user.click(screen.getByRole("button", { name: "Not now" }));
    expect(screen.queryByRole("dialog")).toBeNull();
  });

  it("ignores Escape when not dismissible and keeps Tab inside", async () => {
    const { user } = await renderNode(opener, { overlays: { logout: { ...logout, dismissible: false } }, open: ["logout"] });
    const dialog = screen.getByRole("dialog", { name: "Log out?" });
    await user.keyboard("{Escape}");
    expect(screen.getByRole("dialog")).toBe(dialog);
    expect(screen.queryByRole("button", { name: "Close" })).toBeNull();
    await user.tab();
    expect(document.activeElement?.textContent).toBe("Not now");
    await user.tab();
    expect(document.activeElement?.textContent).toBe("Yes, log out");
  });

  it("renders as a drawer or full screen", async () => {
    const { container } = await renderNode(opener, {
      overlays: { menu: { type: "dialog", id: "menu", presentation: "drawer", title: "Menu", children: [] } },
      open: ["menu"],
    });
    expect(container.ownerDocument.querySelector(".overlay--drawer")).toBeTruthy();
  });

  it("draws a success outcome as a mark and a centred headline in the body, still labelling the dialog", async () => {
    const done = {
      type: "dialog",
      id: "done",
      presentation: "fullscreen",
      outcome: "success",
      title: "Your plan has been updated!",
      dismissible: true,
      closeLabel: "Close",
      children: [{ type: "text", style: "body", text: "You pay less from today." }],
    };
    const { container } = await renderNode(opener, { overlays: { done }, open: ["done"] });
    const dialog = screen.getByRole("dialog", { name: "Your plan has been updated!" });
    const headline = screen.getByRole("heading", { name: "Your plan has been updated!" });
    expect(headline.closest(".dialog__body--outcome")).not.toBeNull();
    expect(dialog.querySelector(".dialog__head .dialog__title")).toBeNull();
    expect(container.ownerDocument.querySelector(".dialog__mark--success")?.getAttribute("aria-hidden")).toBe("true");
    expect(screen.getByRole("button", { name: "Close" })).toBeTruthy();
  });

  it("renders nothing outside the overlays", async () => {
    await renderNode(logout);
    expect(screen.queryByRole("dialog")).toBeNull();
  });
});
