import { act, render, screen } from "@testing-library/react";
import { StrictMode } from "react";
import { describe, expect, it, vi } from "vitest";
import { App } from "../app";
import { envelope, fakeServer, makeEngine, renderApp, settle } from "../test/harness";

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

  it("widens the app column for a wide screen only", async () => {
    const wide = await renderApp(() => envelope([], { screen: { width: "wide" } }));
    expect(wide.container.querySelector(".app > .screen--wide")).toBeTruthy();
    wide.unmount();
    const phone = await renderApp(() => envelope([]));
    expect(phone.container.querySelector(".screen--wide")).toBeNull();
  });

  it("applies the layout", async () => {
    const { container } = await renderApp(() => envelope([], { screen: { layout: "centered" } }));
    expect(container.querySelector(".screen--centered")).toBeTruthy();
  });

  // React may run an effect twice for one mount (StrictMode does so on purpose, to find effects
  // that are not idempotent): onLoad must still run once.
  it("runs onLoad once when the screen arrives, even when effects run twice", async () => {
    window.history.replaceState(null, "", "/");
    const server = fakeServer((call) =>
      call.method === "POST"
        ? { body: {} }
        : {
            body: envelope([{ type: "text", text: "Loaded", visible: { path: "/loaded" } }], {
              screen: {
                onLoad: {
                  type: "sequence",
                  actions: [
                    { type: "track", event: "screen_loaded" },
                    { type: "set_state", path: "/loaded", value: true },
                  ],
                },
              },
            }),
          },
    );
    const runtime = makeEngine(server);
    render(
      <StrictMode>
        <App runtime={runtime} />
      </StrictMode>,
    );
    await act(() => runtime.start());
    expect(await screen.findByText("Loaded")).toBeTruthy();
    await settle();
    const tracks = server.calls.filter((call) => call.path === "/ui/actions/event.track");
    expect(tracks).toHaveLength(1);
  });
});
