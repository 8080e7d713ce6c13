import { act, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { App } from "../../app";
import { envelope, makeEngine, renderApp, type FakeServer } from "../../test/harness";

/** What the fake server answers for a file: its bytes, or an error as the server sends it. */
type FileReply =
  | { kind: "pdf" }
  | { kind: "error"; status: number; body: unknown; contentType?: string }
  | { kind: "network-error" };

/**
 * A fake server whose screen is `children` and whose files answer `reply`: a PDF, or an error
 * the way engine/server answers one (JSON to a fetch that asks for it).
 */
async function renderWithFiles(children: unknown[], reply: (url: string) => FileReply) {
  const calls: { url: string; headers: Record<string, string> }[] = [];
  const fetcher = vi.fn(async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = input instanceof Request ? input.url : String(input);
    const headers = { ...((init?.headers ?? {}) as Record<string, string>) };
    calls.push({ url, headers });
    await Promise.resolve();
    if (url.startsWith("/ui/screen")) {
      return new Response(JSON.stringify(envelope(children)), { headers: { "Content-Type": "application/json" } });
    }
    const answer = reply(url);
    if (answer.kind === "network-error") throw new TypeError("Failed to fetch");
    if (answer.kind === "pdf") {
      return new Response("%PDF-1.7 report", { headers: { "Content-Type": "application/pdf" } });
    }
    const body = typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body);
    return new Response(body, {
      status: answer.status,
      headers: { "Content-Type": answer.contentType ?? "application/json; charset=utf-8" },
    });
  });
  const server: FakeServer = { fetch: fetcher, calls: [] };
  window.history.replaceState(null, "", "/");
  const runtime = makeEngine(server);
  const result = render(<App runtime={runtime} />);
  await act(() => runtime.start());
  return { ...result, runtime, calls };
}

describe("download", () => {
  let clicked: { href: string; download: string }[];
  let saved: Blob[];

  beforeEach(() => {
    clicked = [];
    saved = [];
    vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push({ href: this.getAttribute("href") ?? "", download: this.download });
    });
    // jsdom has no object URLs.
    URL.createObjectURL = vi.fn((blob: Blob) => {
      saved.push(blob);
      return `blob:http://localhost/${String(saved.length)}`;
    });
    URL.revokeObjectURL = vi.fn();
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  it("fetches a same-origin file and saves it under its name", async () => {
    const { runtime, calls } = await renderWithFiles([], () => ({ kind: "pdf" }));
    expect(await runtime.run({ type: "download", url: "/files/reels.pdf", filename: "reels.pdf" })).toBe(true);
    const asked = calls.find((call) => call.url === "/files/reels.pdf");
    // It asks for the file, else the error as JSON, never the page the server shows a browser.
    expect(asked?.headers.Accept).toContain("application/pdf");
    expect(asked?.headers.Accept).toContain("application/json");
    expect(asked?.headers.Accept).not.toContain("text/html");
    expect(clicked).toEqual([{ href: "blob:http://localhost/1", download: "reels.pdf" }]);
    expect(await saved[0]?.text()).toBe("%PDF-1.7 report");
    expect(document.querySelectorAll("a[download][hidden]")).toHaveLength(0);
  });

  // The case: the report of a profile not analysed yet. The server's error used to be
  // saved as profile-report.pdf; now nothing is saved and the app says why.
  it("saves nothing when the server refuses the file, and says why in the app", async () => {
    const { runtime } = await renderWithFiles([], () => ({
      kind: "error",
      status: 404,
      body: { errors: { form: "Your profile has not been analysed yet." } },
    }));
    expect(await runtime.run({ type: "download", url: "/reports/profile.pdf", filename: "profile-report.pdf" })).toBe(false);
    expect(clicked).toEqual([]);
    expect(saved).toEqual([]);
    expect((await screen.findByRole("alert")).textContent).toContain("Your profile has not been analysed yet.");
  });

  it("says something went wrong for an error with no message, or a page, or no network", async () => {
    for (const reply of [
      { kind: "error", status: 500, body: "oops", contentType: "text/plain" },
      { kind: "error", status: 200, body: "<!DOCTYPE html><p>Not here</p>", contentType: "text/html" },
      { kind: "network-error" },
    ] satisfies FileReply[]) {
      const { runtime, unmount } = await renderWithFiles([], () => reply);
      expect(await runtime.run({ type: "download", url: "/reels-playbook.pdf", filename: "reels.pdf" })).toBe(false);
      expect((await screen.findByRole("alert")).textContent).toContain("Something went wrong");
      unmount();
    }
    expect(clicked).toEqual([]);
  });

  it("a tap on the download link fetches the file rather than letting the browser save what comes", async () => {
    const user = userEvent.setup();
    const { calls } = await renderWithFiles(
      [{ type: "button", label: "Download the report", action: { type: "download", url: "/reports/profile.pdf", filename: "profile-report.pdf" } }],
      () => ({ kind: "error", status: 404, body: { errors: { form: "Your profile has not been analysed yet." } } }),
    );
    const link = screen.getByRole("link", { name: "Download the report" });
    // Seen where the click ends, after the app's handler: whether the browser would follow it.
    const followed = vi.fn<(prevented: boolean) => void>();
    const seen = (event: MouseEvent): void => {
      followed(event.defaultPrevented);
    };
    document.addEventListener("click", seen);
    await user.click(link);
    document.removeEventListener("click", seen);
    expect((await screen.findByRole("alert")).textContent).toContain("Your profile has not been analysed yet.");
    expect(calls.some((call) => call.url === "/reports/profile.pdf")).toBe(true);
    // The browser does not follow it (it would save the error as profile-report.pdf).
    expect(followed).toHaveBeenCalledWith(true);
    expect(clicked).toEqual([]);
  });

  it("renders as a link with the download attribute", async () => {
    await renderApp(() => envelope([{ type: "button", label: "Download", action: { type: "download", url: "/files/a.pdf" } }]));
    const link = screen.getByRole("link", { name: "Download" });
    expect(link.getAttribute("href")).toBe("/files/a.pdf");
    expect(link.hasAttribute("download")).toBe(true);
  });

  it("refuses another origin", async () => {
    const { runtime, server } = await renderApp(() => envelope([]));
    expect(await runtime.run({ type: "download", url: "//evil.example/x.pdf" })).toBe(false);
    expect(server.calls.filter((call) => call.path.endsWith(".pdf"))).toEqual([]);
  });
});
