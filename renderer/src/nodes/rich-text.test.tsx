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
});
