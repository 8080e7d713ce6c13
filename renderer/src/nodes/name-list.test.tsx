import { act, fireEvent, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { App } from "../app";
import { asNamePage } from "../runtime/api";
import { envelope, fakeServer, makeEngine, settle, stopEngines, type Call } from "../test/harness";

const NAMES = Array.from({ length: 250 }, (_, i) => `brook${i + 1}`);

const fans = {
  type: "name_list",
  label: "Your fans",
  src: "/ui/audience?group=fans",
  searchLabel: "Search by username",
  moreLabel: "Show more",
  countLabel: "Showing {shown} of {total}",
  text: "No one here matches your search.",
  pendingLabel: "Loading more names",
  href: "https://www.instagram.com/{name}/",
  linkHint: "(opens the Instagram profile in a new tab)",
};

/** The server's pages of NAMES: a search narrows them, offset and limit cut them. */
function audience(call: Call): { status?: number; body: unknown } {
  const url = new URL(call.url, "http://test");
  const q = url.searchParams.get("q") ?? "";
  const offset = Number(url.searchParams.get("offset"));
  const limit = Number(url.searchParams.get("limit"));
  const matching = NAMES.filter((name) => name.includes(q));
  const end = Math.min(offset + limit, matching.length);
  return { body: { names: matching.slice(offset, end), total: matching.length, next: end < matching.length ? end : null } };
}

async function renderList(answer: (call: Call) => { status?: number; body: unknown } | "network-error" = audience) {
  const env = envelope([fans]);
  const server = fakeServer((call) => (call.path === "/ui/audience" ? answer(call) : { body: env }));
  const runtime = makeEngine(server);
  const result = render(<App runtime={runtime} />);
  await act(() => runtime.start());
  await settle();
  return { ...result, server, user: userEvent.setup() };
}

afterEach(() => {
  stopEngines();
  vi.useRealTimers();
});

describe("name_list", () => {
  it("reads the first page, links each name to its profile in a new tab, and shows more on request", async () => {
    const { server, user, container } = await renderList();
    await screen.findByText("Showing 100 of 250");
    // Counted by selector: role queries over hundreds of links are slow in jsdom.
    const list = container.querySelector('ul[aria-label="Your fans"]');
    expect(list?.querySelectorAll("a")).toHaveLength(100);
    const first = screen.getByText("@brook1").closest("a");
    if (first === null) throw new Error("no link");
    expect(first.textContent).toBe("@brook1 (opens the Instagram profile in a new tab)");
    expect(first.getAttribute("href")).toBe("https://www.instagram.com/brook1/");
    expect(first.getAttribute("target")).toBe("_blank");
    expect(first.getAttribute("rel")).toContain("noopener");
    const asked = server.calls.filter((call) => call.path === "/ui/audience");
    expect(asked[0]?.url).toBe("/ui/audience?group=fans&q=&offset=0&limit=100");
    expect(asked[0]?.headers["X-SDUI-Version"]).toBe("1");

    await user.click(screen.getByRole("button", { name: "Show more" }));
    await screen.findByText("Showing 200 of 250");
    await user.click(screen.getByRole("button", { name: "Show more" }));
    await screen.findByText("Showing 250 of 250");
    expect(list?.querySelectorAll("a")).toHaveLength(250);
    expect(screen.queryByRole("button", { name: "Show more" })).toBeNull();
  }, 30_000);

  it("searches once typing pauses and says when nothing matches", async () => {
    const { server } = await renderList();
    await screen.findByText("Showing 100 of 250");
    // Keys are pressed 100 ms apart on the renderer's own clock, moved by
    // hand: on a busy machine real keystrokes can pause for longer than the
    // search waits, and were searched once per pause (this test failed so in
    // a CI run).
    const type = async (text: string) => {
      vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
      const box = screen.getByRole("searchbox", { name: "Search by username" });
      for (let i = 1; i <= text.length; i++) {
        fireEvent.change(box, { target: { value: text.slice(0, i) } });
        await act(() => vi.advanceTimersByTimeAsync(100));
      }
      const before = searches().length;
      await act(() => vi.advanceTimersByTimeAsync(250));
      vi.useRealTimers();
      return before;
    };
    const searches = () =>
      server.calls
        .filter((call) => call.path === "/ui/audience" && !call.url.includes("q=&"))
        .map((call) => new URL(call.url, "http://test").searchParams.get("q"));
    expect(await type("brook24")).toBe(0); // nothing searched while typing
    await screen.findByText("Showing 11 of 11", {}, { timeout: 5000 });
    expect(searches()).toEqual(["brook24"]);
    expect(await type("nobody")).toBe(1);
    await screen.findByText("No one here matches your search.", {}, { timeout: 5000 });
    expect(screen.queryByText("@brook1")).toBeNull();
    expect(searches()).toEqual(["brook24", "nobody"]);
  }, 30_000);

  it("says when a page fails and tries again on request", async () => {
    let fail = true;
    const { user } = await renderList((call) => (fail ? "network-error" : audience(call)));
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toContain("Something went wrong");
    fail = false;
    await user.click(within(alert).getByRole("button", { name: "Try again" }));
    await screen.findByText("Showing 100 of 250");
  }, 30_000);
});

describe("asNamePage", () => {
  it("takes a well-formed page and refuses anything else", () => {
    expect(asNamePage({ names: ["a"], total: 1, next: null })).toEqual({ names: ["a"], total: 1, next: null });
    expect(asNamePage({ names: ["a", 2], total: 2, next: null })).toBeNull();
    expect(asNamePage({ names: [], total: -1, next: null })).toBeNull();
    expect(asNamePage({ names: [], total: 0, next: 1.5 })).toBeNull();
    expect(asNamePage("names")).toBeNull();
  });
});
