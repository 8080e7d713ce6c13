import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderNode } from "../test/harness";

describe("post_list", () => {
  it("lists posts with picture, date and count", async () => {
    await renderNode({
      type: "post_list",
      label: "Most liked posts",
      posts: [
        { image: { src: "/p/1.jpg", alt: "Beach" }, dateLabel: "Mar 1", countLabel: "1 like", date: "2026-03-01T09:00:00Z" },
        { image: { src: "/p/2.jpg", alt: "Cat" }, dateLabel: "Feb 27", countLabel: "12 likes" },
      ],
    });
    const list = screen.getByRole("list", { name: "Most liked posts" });
    expect(list.children).toHaveLength(2);
    expect(screen.getByRole("img", { name: "Beach" })).toBeTruthy();
    expect(screen.getByText("Mar 1").getAttribute("datetime")).toBe("2026-03-01T09:00:00Z");
    expect(screen.getByText("12 likes")).toBeTruthy();
  });
});
