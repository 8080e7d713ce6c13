import { act, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { type Call, envelope, renderApp, settle, spyWindow } from "../test/harness";
import { DEFAULT_BACK, isLocalPath } from "./router";

const page = (text: string) => envelope([{ type: "text", text }]);

describe("router", () => {
  it("boots by fetching the screen for the current path and query", async () => {
    const { server } = await renderApp({ "/dashboard?tab=1": page("Home") }, { url: "/dashboard?tab=1" });
    expect(screen.getByText("Home")).toBeTruthy();
    expect(server.calls.map((call) => call.url)).toEqual(["/ui/screen?path=%2Fdashboard%3Ftab%3D1"]);
  });

  describe("with the first screen in the page", () => {
    /** Puts the server's data block into the document, as serveApp does, for the next engine. */
    function firstScreen(screens: Record<string, unknown>): HTMLScriptElement {
      const block = document.createElement("script");
      block.type = "application/json";
      block.id = "glimpse-first";
      block.textContent = JSON.stringify({ date: "2026-03-01T10:00:00.000Z", csrf: "page-token", screens });
      document.body.append(block);
      return block;
    }

    it("boots without a request, following a guard's redirect the page carries too", async () => {
      const block = firstScreen({ "/": { effects: [{ type: "replace", to: "/sign-in" }] }, "/sign-in": page("Sign in here") });
      const { server } = await renderApp({}, { url: "/" });
      block.remove();
      expect(screen.getByText("Sign in here")).toBeTruthy();
      expect(window.location.pathname).toBe("/sign-in");
      expect(server.calls).toHaveLength(0);
      expect(screen.queryByRole("status", { name: "Loading" })).toBeNull();
    });

    it("fetches when the page's screen is for another path", async () => {
      const block = firstScreen({ "/other": page("Other") });
      const { server } = await renderApp({ "/dashboard": page("Dashboard") }, { url: "/dashboard" });
      block.remove();
      expect(screen.getByText("Dashboard")).toBeTruthy();
      expect(server.calls.map((call) => call.url)).toEqual(["/ui/screen?path=%2Fdashboard"]);
    });

    it("fetches after posting a secret from the fragment: the page's screen was composed before it", async () => {
      const block = firstScreen({ "/password-recovery": page("Before the token") });
      const { server } = await renderApp({ "/password-recovery": page("After the token") }, { url: "/password-recovery#reset=tok" });
      block.remove();
      expect(server.calls.map((call) => call.method)).toEqual(["POST", "GET"]);
      expect(server.calls[0]?.headers["X-CSRF-Token"]).toBeUndefined();
      expect(screen.getByText("After the token")).toBeTruthy();
    });
  });

  it("takes creds out of the address bar before any request, shows the loader, then signs in", async () => {
    const seen: { call: Call; search: string; loader: boolean }[] = [];
    let release: (() => void) | undefined;
    const pending = renderApp({ "/dashboard": page("Dashboard") }, {
      url: "/?creds=c2VjcmV0&from=mail",
      onAction: (call) =>
        new Promise((resolve) => {
          seen.push({ call, search: window.location.search, loader: screen.queryByRole("status", { name: "Loading" }) !== null });
          release = () => resolve({ body: { effects: [{ type: "replace", to: "/dashboard" }] } });
        }),
    });
    await vi.waitFor(() => expect(release).toBeDefined());
    expect(seen[0]?.search).toBe("?from=mail");
    expect(seen[0]?.loader).toBe(true);
    expect(seen[0]?.call.url).toBe("/ui/actions/session.from_url");
    expect(seen[0]?.call.body).toEqual({ values: { creds: "c2VjcmV0" }, path: "/?from=mail" });
    release?.();
    const { server } = await pending;
    expect(await screen.findByText("Dashboard")).toBeTruthy();
    expect(window.location.pathname).toBe("/dashboard");
    expect(server.calls.map((call) => call.url)).toEqual(["/ui/actions/session.from_url", "/ui/screen?path=%2Fdashboard"]);
    expect(screen.queryByRole("status", { name: "Loading" })).toBeNull();
  });

  it("signs in with a one-time login token the same way, with the page's CSRF token", async () => {
    const meta = document.createElement("meta");
    meta.name = "glimpse-csrf";
    meta.content = "page-token";
    document.head.append(meta);
    const { server } = await renderApp({ "/": page("Welcome") }, { url: "/?login=tok123" });
    meta.remove();
    expect(server.calls[0]?.headers["X-CSRF-Token"]).toBe("page-token");
    expect(window.location.search).toBe("");
    expect(server.calls[0]?.body).toEqual({ values: { login: "tok123" }, path: "/" });
    // No effects came back: the current screen loads.
    expect(server.calls[1]?.url).toBe("/ui/screen?path=%2F");
    expect(screen.getByText("Welcome")).toBeTruthy();
  });

  it("takes a reset token out of the fragment and posts it; the answer's screen is shown", async () => {
    const { server } = await renderApp(
      {},
      {
        url: "/password-recovery#reset=tok456",
        onAction: () => Promise.resolve({ body: envelope([{ type: "text", text: "New password" }]) }),
      },
    );
    expect(window.location.hash).toBe("");
    expect(window.location.pathname).toBe("/password-recovery");
    expect(server.calls[0]?.url).toBe("/ui/actions/session.from_url");
    expect(server.calls[0]?.body).toEqual({ values: { reset: "tok456" }, path: "/password-recovery" });
    expect(server.calls).toHaveLength(1);
    expect(screen.getByText("New password")).toBeTruthy();
  });

  it("intercepts plain clicks on same-origin links only", async () => {
    const { user, server } = await renderApp({
      "/": envelope([
        {
          type: "rich_text",
          blocks: [
            {
              kind: "paragraph",
              spans: [
                { text: "Internal", href: "/news" },
                { text: "External", href: "https://example.com/" },
              ],
            },
          ],
        },
      ]),
      "/news": page("News"),
    });
    // jsdom cannot leave the page: stop the browser's own navigation after the router had its say.
    const stay = (event: MouseEvent): void => event.preventDefault();
    document.addEventListener("click", stay);
    await user.click(screen.getByRole("link", { name: "External" }));
    expect(server.calls).toHaveLength(1);
    await user.keyboard("{Control>}");
    await user.click(screen.getByRole("link", { name: "Internal" }));
    await user.keyboard("{/Control}");
    expect(server.calls).toHaveLength(1);
    document.removeEventListener("click", stay);
    await user.click(screen.getByRole("link", { name: "Internal" }));
    expect(await screen.findByText("News")).toBeTruthy();
    expect(window.location.pathname).toBe("/news");
  });

  it("loads a target with a secret fragment as a page, so that boot takes the secret", async () => {
    const spy = spyWindow();
    const { runtime, server } = await renderApp(() => envelope([]), { window: spy.window });
    expect(await runtime.run({ type: "navigate", to: "/password-recovery#reset=tok" })).toBe(true);
    expect(spy.assign).toHaveBeenCalledWith("/password-recovery#reset=tok");
    expect(server.calls).toHaveLength(1);
  });

  it("loads the screen on back and forward and scrolls to the top", async () => {
    const { user } = await renderApp({
      "/": envelope([{ type: "link", label: "Go", action: { type: "navigate", to: "/next" } }]),
      "/next": page("Next page"),
    });
    await user.click(screen.getByRole("link", { name: "Go" }));
    await screen.findByText("Next page");
    vi.mocked(window.scrollTo).mockClear();
    await act(async () => {
      window.history.back();
      await new Promise((resolve) => setTimeout(resolve, 20));
    });
    await settle();
    expect(await screen.findByRole("link", { name: "Go" })).toBeTruthy();
    expect(window.location.pathname).toBe("/");
    expect(window.scrollTo).toHaveBeenCalledWith(0, 0);
  });

  it("keeps the last good screen with a notice when a fetch fails, and retries", async () => {
    let fail = false;
    const { user, runtime } = await renderApp(() => (fail ? undefined : page("Last good")));
    fail = true;
    await act(() => runtime.router.navigate("/broken"));
    expect(screen.getByText("Last good")).toBeTruthy();
    expect(screen.getByRole("alert").textContent).toContain("Not found");
    fail = false;
    await user.click(screen.getByRole("button", { name: "Try again" }));
    await settle();
    expect(screen.queryByRole("alert")).toBeNull();
  });

  it("shows 'Something went wrong' when the very first screen cannot be fetched", async () => {
    const { runtime } = await renderApp(() => undefined);
    expect(runtime.store.get().screen).toBeNull();
    expect(screen.getAllByText("Not found").length).toBeGreaterThan(0);
  });

  it("does one hard reload when the server says the client is stale", async () => {
    const spy = spyWindow();
    let stale = true;
    const { runtime } = await renderApp(() => (stale ? { reload: true } : page("Fresh")), { window: spy.window });
    expect(spy.reload).toHaveBeenCalledTimes(1);
    // The reloaded page is told to reload again: it does not loop.
    await act(() => runtime.router.refresh());
    expect(spy.reload).toHaveBeenCalledTimes(1);
    expect(screen.getByRole("alert").textContent).toContain("Something went wrong");
    stale = false;
    await act(() => runtime.router.refresh());
    expect(screen.getByText("Fresh")).toBeTruthy();
  });

  it("accepts only same-origin paths", () => {
    expect(isLocalPath("/dashboard")).toBe(true);
    expect(isLocalPath("//evil.example")).toBe(false);
    expect(isLocalPath("/\\evil.example")).toBe(false);
    expect(isLocalPath("https://example.com")).toBe(false);
    expect(DEFAULT_BACK).toBe("/dashboard");
  });
});
