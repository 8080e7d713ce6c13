import { screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { envelope, renderApp } from "../../test/harness";

describe("download", () => {
  it("fetches a same-origin file in the same window through a download link", async () => {
    const clicked: { href: string; download: string }[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push({ href: this.getAttribute("href") ?? "", download: this.download });
    });
    const { runtime } = await renderApp(() => envelope([]));
    expect(await runtime.run({ type: "download", url: "/files/reels.pdf", filename: "reels.pdf" })).toBe(true);
    expect(clicked).toEqual([{ href: "/files/reels.pdf", download: "reels.pdf" }]);
    expect(document.querySelectorAll("a[download]")).toHaveLength(0);
  });

  it("renders as a link with the download attribute", async () => {
    await renderApp(() => envelope([{ type: "button", label: "Download", action: { type: "download", url: "/files/a.pdf" } }]));
    const link = screen.getByRole("link", { name: "Download" });
    expect(link.getAttribute("href")).toBe("/files/a.pdf");
    expect(link.hasAttribute("download")).toBe(true);
  });

  it("refuses another origin", async () => {
    const { runtime } = await renderApp(() => envelope([]));
    expect(await runtime.run({ type: "download", url: "//evil.example/x.pdf" })).toBe(false);
  });
});
