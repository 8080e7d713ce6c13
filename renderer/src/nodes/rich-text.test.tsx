import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { envelope, renderApp, renderNode } from "../test/harness";

describe("rich_text", () => {
  it("renders headings, paragraphs with styled spans and lists", async () => {
    await renderNode({
      type: "rich_text",
      blocks: [
        { kind: "heading", level: 3, spans: [{ text: "Overview" }] },
        {
          kind: "paragraph",
          spans: [
            { text: "Read " },
            { text: "this", strong: true },
            { text: " and " },
            { text: "that", em: true },
            { text: " or the " },
            { text: "news", href: "/dashboard/news" },
            { text: " and " },
            { text: "docs", href: "https://example.com/docs" },
          ],
        },
        { kind: "list", ordered: true, items: [[{ text: "First" }], [{ text: "Second" }]] },
      ],
    });
    expect(screen.getByRole("heading", { level: 3, name: "Overview" })).toBeTruthy();
    expect(screen.getByText("this").tagName).toBe("STRONG");
    expect(screen.getByText("that").tagName).toBe("EM");
    expect(screen.getByRole("link", { name: "news" }).getAttribute("href")).toBe("/dashboard/news");
    const external = screen.getByRole("link", { name: "docs" });
    expect(external.getAttribute("target")).toBe("_blank");
    expect(external.getAttribute("rel")).toBe("noopener noreferrer");
    const list = screen.getByRole("list");
    expect(list.tagName).toBe("OL");
    expect(screen.getAllByRole("listitem").map((item) => item.textContent)).toEqual(["First", "Second"]);
  });

  it("marks a diff's added and removed text, in words for screen readers", async () => {
    await renderNode({
      type: "rich_text",
      blocks: [{ kind: "paragraph", spans: [{ text: "Reels grow " }, { text: "fast", del: true }, { text: "slowly", ins: true }] }],
    });
    const removed = screen.getByText("fast").closest("del");
    const added = screen.getByText("slowly").closest("ins");
    expect(removed?.textContent).toBe("removed: fast");
    expect(added?.textContent).toBe("added: slowly");
  });

  it("routes a same-origin span link without a page load", async () => {
    const { user, server } = await renderApp({
      "/": envelope([{ type: "rich_text", blocks: [{ kind: "paragraph", spans: [{ text: "News", href: "/news" }] }] }]),
      "/news": envelope([{ type: "text", text: "All the news" }]),
    });
    await user.click(screen.getByRole("link", { name: "News" }));
    expect(await screen.findByText("All the news")).toBeTruthy();
    expect(window.location.pathname).toBe("/news");
    expect(server.calls.at(-1)?.url).toBe("/ui/screen?path=%2Fnews");
  });

  it("shows a link whose target a browser would read as another origin or script as plain text", async () => {
    // Each passes the schema's pattern (one slash, then not a slash) yet opens another origin.
    const hostile = ["/\t/evil.example", "/\n/evil.example", "/\r\n/evil.example", "/%2f/evil.example", "/%5Cevil.example"];
    await renderNode({
      type: "rich_text",
      blocks: [
        {
          kind: "paragraph",
          spans: [...hostile.map((href, index) => ({ text: `bad${index} `, href })), { text: "good", href: "/dash\tboard" }],
        },
      ],
    });
    hostile.forEach((_, index) => {
      expect(screen.queryByRole("link", { name: `bad${index}` })).toBeNull();
      expect(screen.getByText(`bad${index}`, { exact: false })).toBeTruthy();
    });
    expect(screen.getAllByRole("link")).toHaveLength(1);
    expect(screen.getByRole("link", { name: "good" }).getAttribute("href")).toBe("/dashboard");
  });
});
