import { screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { renderNode } from "../test/harness";

describe("image", () => {
  it("renders an image with its alt text", async () => {
    await renderNode({ type: "image", src: "/img/cover.png", alt: "A cover", aspect: "wide", fit: "contain" });
    const image = screen.getByRole("img", { name: "A cover" });
    expect(image.getAttribute("src")).toBe("/img/cover.png");
    expect(image.className).toContain("image--wide");
  });

  it("falls back when the source is not allowed", async () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    await renderNode({
      type: "image",
      src: "javascript:alert(1)",
      alt: "x",
      fallback: { type: "text", text: "No picture" },
    });
    expect(screen.queryByRole("img")).toBeNull();
    expect(screen.getByText("No picture")).toBeTruthy();
  });
});
