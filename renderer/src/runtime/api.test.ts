import { describe, expect, it, vi } from "vitest";
import { envelope, fakeServer } from "../test/harness";
import { createApi, type FirstScreen, parseFirstScreen } from "./api";

/** A kept page's meta: the envelope's meta without the per-request parts the server sends in headers. */
function withoutKeys(meta: unknown, ...keys: string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(meta as Record<string, unknown>).filter(([k]) => !keys.includes(k)));
}

describe("api", () => {
  it("GETs a screen with the version header and same-origin credentials", async () => {
    const server = fakeServer(() => ({ body: envelope([]) }));
    let init: RequestInit | undefined;
    const api = createApi((input, options) => {
      init = options;
      return server.fetch(input, options);
    }, () => 42);
    const answer = await api.screen("/dashboard/news?page=2");
    expect(server.calls[0]?.url).toBe("/ui/screen?path=%2Fdashboard%2Fnews%3Fpage%3D2");
    expect(server.calls[0]?.headers["X-SDUI-Version"]).toBe("1");
    expect(init?.credentials).toBe("same-origin");
    expect(answer.kind).toBe("envelope");
    if (answer.kind === "envelope") expect(answer.receivedAt).toBe(42);
  });

  it("POSTs an action with values, path and the CSRF token of the last envelope", async () => {
    const server = fakeServer((call) => (call.method === "GET" ? { body: envelope([], { meta: { csrf: "abc" } }) } : { body: {} }));
    const api = createApi(server.fetch);
    await api.action("session.sign_in", { email: "a" }, "/sign-in");
    expect(server.calls[0]?.headers["X-CSRF-Token"]).toBeUndefined();
    await api.screen("/sign-in");
    const answer = await api.action("session.sign_in", { email: "a" }, "/sign-in");
    const post = server.calls[2];
    expect(post?.method).toBe("POST");
    expect(post?.url).toBe("/ui/actions/session.sign_in");
    expect(post?.headers["X-CSRF-Token"]).toBe("abc");
    expect(post?.headers["X-SDUI-Version"]).toBe("1");
    expect(post?.headers["Content-Type"]).toBe("application/json");
    expect(post?.body).toEqual({ values: { email: "a" }, path: "/sign-in" });
    expect(answer).toEqual({ kind: "result", result: {}, status: 200 });
  });

  it("takes up the CSRF token a sign-in's answer issues, for the very next POST", async () => {
    const server = fakeServer((call) =>
      call.path === "/ui/actions/session.sign_in"
        ? { body: { effects: [{ type: "replace", to: "/dashboard" }] }, headers: { "X-CSRF-Token": "after-sign-in" } }
        : { body: {} },
    );
    const api = createApi(server.fetch, Date.now, "before-sign-in");
    await api.action("session.sign_in", { email: "a" }, "/sign-in");
    expect(server.calls[0]?.headers["X-CSRF-Token"]).toBe("before-sign-in");
    await api.action("event.track", { event: "x" }, "/dashboard");
    expect(server.calls[1]?.headers["X-CSRF-Token"]).toBe("after-sign-in");
    expect(api.csrf()).toBe("after-sign-in");
  });

  it("takes the CSRF token of a screen from its X-CSRF-Token header, over meta.csrf", async () => {
    const { meta, ...kept } = envelope([]);
    const keptMeta = withoutKeys(meta, "csrf", "serverNow");
    const server = fakeServer((call) => {
      if (call.method === "POST") return { body: {} };
      if (call.url.includes("kept")) return { body: { ...kept, meta: keptMeta }, headers: { "X-CSRF-Token": "from-header" } };
      return { body: envelope([], { meta: { csrf: "from-body" } }), headers: { "X-CSRF-Token": "header-wins" } };
    });
    const api = createApi(server.fetch, Date.now, "from-page");
    expect((await api.screen("/kept")).kind).toBe("envelope");
    expect(api.csrf()).toBe("from-header");
    await api.screen("/other");
    expect(api.csrf()).toBe("header-wins");
    await api.action("event.track", { event: "x" }, "/other");
    expect(server.calls[2]?.headers["X-CSRF-Token"]).toBe("header-wins");
  });

  it("falls back to meta.csrf when a screen has no X-CSRF-Token header", async () => {
    const api = createApi(fakeServer(() => ({ body: envelope([], { meta: { csrf: "from-body" } }) })).fetch, Date.now, "from-page");
    await api.screen("/x");
    expect(api.csrf()).toBe("from-body");
  });

  it("takes the server time from the Date header, else from meta.serverNow", async () => {
    const { meta, ...kept } = envelope([]);
    const noTime = withoutKeys(meta, "serverNow");
    const date = "Sun, 01 Mar 2026 10:00:05 GMT";
    const serverNow = async (body: unknown, headers?: Record<string, string>) => {
      const answer = await createApi(fakeServer(() => ({ body, headers })).fetch).screen("/");
      return answer.kind === "envelope" ? answer.envelope.meta.serverNow : "not an envelope";
    };
    // A kept page: no serverNow in the body, the Date header says when.
    expect(await serverNow({ ...kept, meta: noTime }, { Date: date })).toBe("2026-03-01T10:00:05.000Z");
    // No Date header: the body's.
    expect(await serverNow(envelope([]))).toBe("2026-03-01T10:00:00Z");
    // A body's time from another second (a cached body revalidated by a 304): the header's.
    expect(await serverNow(envelope([]), { Date: date })).toBe("2026-03-01T10:00:05.000Z");
    // A body's time within the header's second is the same instant, more precise: kept.
    expect(await serverNow(envelope([], { meta: { serverNow: "2026-03-01T10:00:05.250Z" } }), { Date: date })).toBe(
      "2026-03-01T10:00:05.250Z",
    );
    // Neither: none, and the store trusts the client's clock.
    expect(await serverNow({ ...kept, meta: noTime })).toBeUndefined();
  });

  it("starts from the CSRF token the page carries", async () => {
    const server = fakeServer(() => ({ body: {} }));
    await createApi(server.fetch, Date.now, "from-page").action("session.from_url", { login: "t" }, "/");
    expect(server.calls[0]?.headers["X-CSRF-Token"]).toBe("from-page");
  });

  it("reads the JSON body whatever the status", async () => {
    const api = createApi(fakeServer(() => ({ status: 422, body: { errors: { fields: { email: "Wrong email format" } } } })).fetch);
    expect(await api.action("x", {}, "/")).toEqual({
      kind: "result",
      result: { errors: { fields: { email: "Wrong email format" } } },
      status: 422,
    });
    const forbidden = createApi(fakeServer(() => ({ status: 403, body: { errors: { form: "Not allowed" } } })).fetch);
    expect(await forbidden.screen("/")).toMatchObject({ kind: "result", result: { errors: { form: "Not allowed" } } });
  });

  it("answers a guard's redirect as effects", async () => {
    const api = createApi(fakeServer(() => ({ body: { effects: [{ type: "replace", to: "/sign-in" }] } })).fetch);
    expect(await api.screen("/dashboard")).toMatchObject({ kind: "result", result: { effects: [{ type: "replace", to: "/sign-in" }] } });
  });

  it("answers a stale client's 409 as a reload", async () => {
    const api = createApi(fakeServer(() => ({ status: 409, body: { reload: true } })).fetch);
    expect(await api.screen("/")).toEqual({ kind: "reload" });
  });

  it("turns a network failure, a non-JSON body or an unexplained error into 'Something went wrong'", async () => {
    expect(await createApi(fakeServer(() => "network-error").fetch).action("x", {}, "/")).toEqual({
      kind: "failure",
      message: "Something went wrong",
      status: 0,
    });
    const html = createApi(() => Promise.resolve(new Response("<html>", { status: 502 })));
    expect(await html.screen("/")).toMatchObject({ kind: "failure", message: "Something went wrong", status: 502 });
    const empty = createApi(fakeServer(() => ({ status: 500, body: {} })).fetch);
    expect(await empty.screen("/")).toMatchObject({ kind: "failure", message: "Something went wrong" });
  });

  it("rejects an envelope that breaks the contract", async () => {
    const api = createApi(fakeServer(() => ({ body: { v: 2, screen: {}, meta: {} } })).fetch);
    const original = console.error;
    console.error = () => undefined;
    try {
      expect(await api.screen("/")).toMatchObject({ kind: "failure", message: "Something went wrong" });
    } finally {
      console.error = original;
    }
  });

  describe("the first screen in the page", () => {
    const { meta, ...kept } = envelope([], { screen: { id: "dashboard" } });
    const keptBody = { ...kept, meta: withoutKeys(meta, "csrf", "serverNow") };
    const page = (screens: Record<string, unknown>): FirstScreen | undefined =>
      parseFirstScreen(JSON.stringify({ date: "2026-03-01T10:00:07.123Z", csrf: "page-token", screens }), 1_000);

    it("answers the page's path from the page, with its token and server time, without fetching", async () => {
      const server = fakeServer(() => ({ body: envelope([]) }));
      const api = createApi(server.fetch, () => 99_999, "meta-token", page({ "/dashboard?tab=1": keptBody }));
      const answer = await api.screen("/dashboard?tab=1");
      expect(server.calls).toHaveLength(0);
      expect(answer.kind).toBe("envelope");
      if (answer.kind !== "envelope") return;
      expect(answer.envelope.screen.id).toBe("dashboard");
      expect(answer.envelope.meta.serverNow).toBe("2026-03-01T10:00:07.123Z");
      // The clock offset is taken against the page's arrival, not the moment it is read.
      expect(answer.receivedAt).toBe(1_000);
      expect(api.csrf()).toBe("page-token");
    });

    it("answers a guard's redirect and the screen it leads to from the page, then fetches", async () => {
      const server = fakeServer(() => ({ body: envelope([]) }));
      const api = createApi(
        server.fetch,
        Date.now,
        undefined,
        page({ "/": { effects: [{ type: "replace", to: "/sign-in" }] }, "/sign-in": keptBody }),
      );
      expect(await api.screen("/")).toMatchObject({ kind: "result", result: { effects: [{ type: "replace", to: "/sign-in" }] } });
      expect((await api.screen("/sign-in")).kind).toBe("envelope");
      expect(server.calls).toHaveLength(0);
      // Spent: the same path again (a refresh) asks the server.
      await api.screen("/sign-in");
      expect(server.calls.map((call) => call.url)).toEqual(["/ui/screen?path=%2Fsign-in"]);
    });

    it("fetches a path the page lacks, and then never answers from the page", async () => {
      const server = fakeServer(() => ({ body: envelope([]) }));
      const api = createApi(server.fetch, Date.now, undefined, page({ "/": { effects: [{ type: "replace", to: "/x" }] }, "/a": keptBody }));
      await api.screen("/b");
      await api.screen("/a");
      expect(server.calls.map((call) => call.url)).toEqual(["/ui/screen?path=%2Fb", "/ui/screen?path=%2Fa"]);
    });

    it("fetches when the page's envelope is invalid", async () => {
      const server = fakeServer(() => ({ body: envelope([]) }));
      const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
      const api = createApi(server.fetch, Date.now, undefined, page({ "/": { v: 1, screen: { type: "screen" } } }));
      expect((await api.screen("/")).kind).toBe("envelope");
      expect(server.calls).toHaveLength(1);
      expect(errors).toHaveBeenCalled();
    });

    it("is dropped by any post, which may change what the server would answer", async () => {
      const server = fakeServer(() => ({ body: envelope([]) }));
      const api = createApi(server.fetch, Date.now, "meta-token", page({ "/": keptBody }));
      await api.action("session.from_url", { reset: "r" }, "/");
      expect(server.calls[0]?.headers["X-CSRF-Token"]).toBe("meta-token");
      await api.screen("/");
      expect(server.calls.map((call) => call.method)).toEqual(["POST", "GET"]);
    });

    it("reads only a well-formed block", () => {
      const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
      expect(parseFirstScreen(null, 0)).toBeUndefined();
      expect(parseFirstScreen("", 0)).toBeUndefined();
      expect(parseFirstScreen("{", 0)).toBeUndefined();
      expect(parseFirstScreen(JSON.stringify({ csrf: "x", screens: {} }), 0)).toBeUndefined();
      expect(parseFirstScreen(JSON.stringify({ date: "d", csrf: "x", screens: [] }), 0)).toBeUndefined();
      expect(errors).toHaveBeenCalledTimes(3);
      expect(parseFirstScreen(JSON.stringify({ date: "d", csrf: "x", screens: { "/": {} } }), 5)?.screens.get("/")).toEqual({});
    });
  });
});
