import { screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { renderApp, envelope } from "../test/harness";

describe("screen", () => {
  it("renders header, main content and footer, and sets the document title", async () => {
    await renderApp(() =>
      envelope([{ type: "text", text: "Body text" }], {
        screen: {
          title: "Analytics",
          header: { type: "header", title: "Analytics" },
          footer: { type: "footer", title: "Glimpse", subtitle: "Profile Analyzer" },
        },
      }),
    );
    expect(screen.getByRole("banner")).toBeTruthy();
    expect(screen.getByRole("main").textContent).toContain("Body text");
    expect(screen.getByRole("contentinfo").textContent).toContain("Profile Analyzer");
    expect(document.title).toBe("Analytics · Glimpse");
  });

  it("keeps the rest of the page when one child fails to render", async () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    await renderApp(() =>
      envelope([
        { type: "text", text: "Before" },
        // A rich_text whose heading level is out of range is invalid: it renders nothing.
        { type: "rich_text", blocks: [{ kind: "heading", level: 9, spans: [] }] },
        { type: "text", text: "After" },
      ]),
    );
    expect(screen.getByText("Before")).toBeTruthy();
    expect(screen.getByText("After")).toBeTruthy();
  });

  it("applies the layout", async () => {
    const { container } = await renderApp(() => envelope([], { screen: { layout: "centered" } }));
    expect(container.querySelector(".screen--centered")).toBeTruthy();
  });

  it("runs onLoad once when the screen arrives", async () => {
    await renderApp(() =>
      envelope([{ type: "text", text: "Loaded", visible: { path: "/loaded" } }], {
        screen: { onLoad: { type: "set_state", path: "/loaded", value: true } },
      }),
    );
    expect(await screen.findByText("Loaded")).toBeTruthy();
  });
});
