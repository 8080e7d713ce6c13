import { readFileSync } from "node:fs";
import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderNode, renderNodes } from "../test/harness";

/** The --tone the element gets from these style sheets: the matching rule of the highest
 * specificity (classes counted: every selector here is classes only) and, among equals, the last. */
function cascadedTone(element: Element, sheets: string[]): string | undefined {
  let best: { specificity: number; value: string } | undefined;
  for (const sheet of sheets) {
    const css = sheet.replace(/\/\*[\s\S]*?\*\//g, "");
    for (const [, selectors = "", body = ""] of css.matchAll(/([^{}]+)\{([^{}]*)\}/g)) {
      const value = /--tone:\s*([^;]+);/.exec(body)?.[1]?.trim();
      if (value === undefined) continue;
      for (const selector of selectors.split(",").map((part) => part.trim())) {
        if (selector === "" || !element.matches(selector)) continue;
        const specificity = (selector.match(/[.:[]/g) ?? []).length;
        if (best === undefined || specificity >= best.specificity) best = { specificity, value };
      }
    }
  }
  return best?.value;
}

describe("button", () => {
  it("is a real link when its action navigates", async () => {
    await renderNode({ type: "button", label: "To all articles", action: { type: "navigate", to: "/dashboard" } });
    expect(screen.getByRole("link", { name: "To all articles" }).getAttribute("href")).toBe("/dashboard");
  });

  it("opens a new window safely for open_url with newWindow", async () => {
    await renderNode({
      type: "button",
      label: "Privacy",
      action: { type: "open_url", url: "https://example.com/privacy", newWindow: true },
    });
    const link = screen.getByRole("link", { name: "Privacy" });
    expect(link.getAttribute("target")).toBe("_blank");
    expect(link.getAttribute("rel")).toBe("noopener noreferrer");
  });

  it("is a download link for download", async () => {
    await renderNode({ type: "button", label: "Get the PDF", action: { type: "download", url: "/files/course.pdf", filename: "course.pdf" } });
    expect(screen.getByRole("link", { name: "Get the PDF" }).getAttribute("download")).toBe("course.pdf");
  });

  it("is a button for other actions and runs them", async () => {
    const { user, runtime } = await renderNode(
      { type: "button", label: "Yes", emphasis: "secondary", action: { type: "set_state", path: "/answer", value: "yes" } },
      { state: { answer: null } },
    );
    const button = screen.getByRole("button", { name: "Yes" });
    expect(button.className).toContain("button--secondary");
    await user.click(button);
    expect(runtime.store.get().state).toEqual({ answer: "yes" });
  });

  it("is disabled while disabledWhen holds", async () => {
    const { user } = await renderNodes(
      [
        { type: "button", label: "Continue", action: { type: "refresh" }, disabledWhen: { eq: [{ path: "/reason" }, null] } },
        { type: "button", label: "Choose", action: { type: "set_state", path: "/reason", value: "price" } },
      ],
      { state: { reason: null } },
    );
    expect(screen.getByRole<HTMLButtonElement>("button", { name: "Continue" }).disabled).toBe(true);
    await user.click(screen.getByRole("button", { name: "Choose" }));
    expect(screen.getByRole<HTMLButtonElement>("button", { name: "Continue" }).disabled).toBe(false);
  });

  it("shows a spinner, aria-busy and disabled while its submit is in flight", async () => {
    let release: (() => void) | undefined;
    const { user, server } = await renderNode(
      { type: "button", label: "Send", action: { type: "submit", action: "contact.send" } },
      {},
      {
        onAction: () =>
          new Promise((resolve) => {
            release = () => resolve({ body: {} });
          }),
      },
    );
    const button = screen.getByRole("button", { name: "Send" });
    await user.click(button);
    expect(button.getAttribute("aria-busy")).toBe("true");
    expect(button.getAttribute("aria-disabled")).toBe("true");
    expect(document.activeElement).toBe(button);
    expect(button.querySelector(".spinner")).toBeTruthy();
    await user.click(button);
    expect(server.calls.filter((call) => call.method === "POST")).toHaveLength(1);
    release?.();
    await screen.findByRole("button", { name: "Send" });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(button.getAttribute("aria-busy")).toBeNull();
  });

  it("draws a destructive button in the danger tone, not as the screen's way forward", async () => {
    await renderNode({
      type: "button",
      label: "Delete my account",
      emphasis: "primary",
      tone: "danger",
      action: { type: "navigate", to: "/dashboard" },
    });
    const button = screen.getByRole("link", { name: "Delete my account" });
    expect(button.className).toContain("button--primary");
    expect(button.className).toContain("tone-danger");
    // The cascade of the styles in the bundle's order (the global tones, then the button's own
    // --tone), worked out by hand: jsdom computes no custom properties.
    const sheets = ["../styles/global.css", "./button.css"].map((path) => readFileSync(new URL(path, import.meta.url), "utf8"));
    expect(cascadedTone(button, sheets)).toBe("var(--color-danger)");
  });
});
