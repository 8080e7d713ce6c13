import { describe, expect, it } from "vitest";
import { applyTheme, applyTitle, documentTitle } from "./theme";

describe("theme", () => {
  it("sets --color-<key> on the root element and drops the last brand's extra keys", () => {
    applyTheme(document, { key: "a", name: "A", theme: { primary: "#112233", level1: "#ff0000" } });
    const style = document.documentElement.style;
    expect(style.getPropertyValue("--color-primary")).toBe("#112233");
    expect(style.getPropertyValue("--color-level1")).toBe("#ff0000");
    expect(document.documentElement.dataset.brand).toBe("a");
    applyTheme(document, { key: "b", name: "B", theme: { primary: "#445566" } });
    expect(style.getPropertyValue("--color-primary")).toBe("#445566");
    expect(style.getPropertyValue("--color-level1")).toBe("");
  });

  it("titles the document with the screen and the brand", () => {
    expect(documentTitle("Analytics", "Glimpse")).toBe("Analytics · Glimpse");
    expect(documentTitle("", "Glimpse")).toBe("Glimpse");
    expect(documentTitle("Glimpse", "Glimpse")).toBe("Glimpse");
    applyTitle(document, "News", "Glimpse");
    expect(document.title).toBe("News · Glimpse");
  });
});
