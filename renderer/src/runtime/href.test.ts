import { describe, expect, it } from "vitest";
import { isLocalPath, isOpenable, normaliseHref } from "./href";

// Each of these is something a browser would open as another origin or as script.
const hostile = [
  "/\t/evil.example",
  "/\t\t/evil.example",
  "/\n/evil.example",
  "/\r\n/evil.example",
  "/\\evil.example",
  "\\\\evil.example",
  "\\/evil.example",
  "//evil.example",
  " //evil.example",
  "\t//evil.example",
  "\u0001//evil.example",
  "/%2f/evil.example",
  "/%2F%2Fevil.example",
  "/%5cevil.example",
  "javascript:alert(1)",
  "JaVaScRiPt:alert(1)",
  "java\tscript:alert(1)",
  "\u0001javascript:alert(1)",
  " javascript:alert(1)",
  "javascript\n:alert(1)",
  "data:text/html,x",
  "http://plain.example",
  "https:evil.example",
  "https:///evil.example",
  "https://",
  "",
];

describe("normaliseHref", () => {
  it.each(hostile)("refuses %j", (href) => {
    expect(normaliseHref(href)).toBeNull();
    expect(isLocalPath(href)).toBe(false);
    expect(isOpenable(href)).toBe(false);
  });

  it.each([
    ["/dashboard/news", "/dashboard/news"],
    ["/", "/"],
    ["/dash\tboard", "/dashboard"],
    ["\t/dashboard ", "/dashboard"],
    ["/a\\b", "/a/b"],
    ["HTTPS://help.example/a", "https://help.example/a"],
    ["https:\\\\help.example", "https://help.example"],
    ["MailTo:a@b.example", "mailto:a@b.example"],
  ])("reads %j as %j", (href, want) => {
    expect(normaliseHref(href)).toBe(want);
  });

  it("takes only paths already in their browser form as local", () => {
    expect(isLocalPath("/dashboard?tab=1")).toBe(true);
    expect(isLocalPath("/dash\tboard")).toBe(false);
    expect(isLocalPath("https://help.example")).toBe(false);
    expect(isOpenable("https://help.example")).toBe(true);
    expect(isOpenable("mailto:a@b.example")).toBe(true);
  });
});
