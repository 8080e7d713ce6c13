import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderNode } from "../test/harness";

describe("footer", () => {
  it("shows the product name, tagline and links that open in a new window", async () => {
    await renderNode({
      type: "footer",
      title: "Glimpse",
      subtitle: "Profile Analyzer",
      children: [
        { type: "link", label: "Terms of Service", action: { type: "open_url", url: "/terms-of-use", newWindow: true } },
      ],
    });
    const footer = screen.getByRole("contentinfo");
    expect(footer.textContent).toContain("Glimpse");
    expect(footer.textContent).toContain("Profile Analyzer");
    const link = screen.getByRole("link", { name: "Terms of Service" });
    expect(link.getAttribute("target")).toBe("_blank");
    expect(link.getAttribute("rel")).toBe("noopener noreferrer");
  });
});
