import { describe, expect, it } from "vitest";
import { getPointer, parsePointer, setPointer } from "./pointer";

describe("pointer", () => {
  it("parses tokens with ~0 and ~1 escapes", () => {
    expect(parsePointer("")).toEqual([]);
    expect(parsePointer("/a/b")).toEqual(["a", "b"]);
    expect(parsePointer("/a~1b/c~0d/~01")).toEqual(["a/b", "c~d", "~1"]);
    expect(parsePointer("/")).toEqual([""]);
    expect(() => parsePointer("a")).toThrow();
  });

  it("reads objects and arrays", () => {
    const document = { form: { email: "a@b.c", tags: ["x", "y"] }, "a/b": 1, "m~n": 2, "": 3 };
    expect(getPointer(document, "/form/email")).toBe("a@b.c");
    expect(getPointer(document, "/form/tags/1")).toBe("y");
    expect(getPointer(document, "/a~1b")).toBe(1);
    expect(getPointer(document, "/m~0n")).toBe(2);
    expect(getPointer(document, "/")).toBe(3);
    expect(getPointer(document, "")).toBe(document);
  });

  it("answers undefined for missing paths", () => {
    const document = { form: { tags: ["x"] }, n: 1 };
    expect(getPointer(document, "/missing/deep")).toBeUndefined();
    expect(getPointer(document, "/form/tags/5")).toBeUndefined();
    expect(getPointer(document, "/form/tags/01")).toBeUndefined();
    expect(getPointer(document, "/form/tags/-")).toBeUndefined();
    expect(getPointer(document, "/n/x")).toBeUndefined();
    expect(getPointer(document, "/toString")).toBeUndefined();
  });

  it("writes, creating missing objects", () => {
    const document: Record<string, unknown> = {};
    expect(setPointer(document, "/form/email", "a")).toBe(true);
    expect(setPointer(document, "/a~1b", 1)).toBe(true);
    expect(document).toEqual({ form: { email: "a" }, "a/b": 1 });
  });

  it("writes into arrays by index or appends with -", () => {
    const document: Record<string, unknown> = { list: ["a"] };
    expect(setPointer(document, "/list/0", "b")).toBe(true);
    expect(setPointer(document, "/list/-", "c")).toBe(true);
    expect(setPointer(document, "/list/9", "z")).toBe(false);
    expect(document).toEqual({ list: ["b", "c"] });
  });

  it("refuses to write through a scalar or at the root", () => {
    const document: Record<string, unknown> = { n: 1 };
    expect(setPointer(document, "/n/x", 2)).toBe(false);
    expect(setPointer(document, "", 2)).toBe(false);
    expect(document).toEqual({ n: 1 });
  });
});
