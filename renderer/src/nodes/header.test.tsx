import { act, fireEvent, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { envelope, renderApp } from "../test/harness";

const menu = { type: "dialog", id: "menu", presentation: "drawer", title: "Menu", dismissible: true, children: [] };

describe("header", () => {
  it("renders the back action as a link with its label, the title and the logo", async () => {
    await renderApp(() =>
      envelope([], {
        screen: {
          header: {
            type: "header",
            title: "News",
            back: { type: "navigate", to: "/dashboard" },
            backLabel: "Back to home",
            logo: { src: "/logo.svg", alt: "Glimpse" },
          },
        },
      }),
    );
    expect(screen.getByRole("link", { name: "Back to home" }).getAttribute("href")).toBe("/dashboard");
    expect(screen.getByRole("heading", { level: 1, name: "News" })).toBeTruthy();
    expect(screen.getByRole("img", { name: "Glimpse" })).toBeTruthy();
  });

  it("opens its menu overlay and reports it expanded", async () => {
    const { user } = await renderApp(() =>
      envelope([], { screen: { header: { type: "header", menu: "menu", menuLabel: "Open menu" } }, overlays: { menu } }),
    );
    const button = screen.getByRole("button", { name: "Open menu" });
    expect(button.getAttribute("aria-expanded")).toBe("false");
    expect(button.getAttribute("aria-haspopup")).toBe("dialog");
    await user.click(button);
    expect(screen.getByRole("dialog", { name: "Menu" })).toBeTruthy();
  });

  it("turns white once the page scrolls when elevateOnScroll is set", async () => {
    await renderApp(() => envelope([], { screen: { header: { type: "header", title: "Home", elevateOnScroll: true } } }));
    const header = screen.getByRole("banner");
    expect(header.className).not.toContain("is-elevated");
    act(() => {
      window.scrollY = 200;
      fireEvent.scroll(window);
    });
    expect(header.className).toContain("is-elevated");
    act(() => {
      window.scrollY = 0;
      fireEvent.scroll(window);
    });
    expect(header.className).not.toContain("is-elevated");
  });
});
