// Text a person can see or hear comes from the brand's copy (runtime/copy.ts), never from a string in
// a component. These checks read the renderer's source so that new English cannot creep in unseen.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { repoPath } from "../test/paths";
import { FALLBACK_COPY } from "./copy";

const SRC = repoPath("renderer", "src");

/**
 * Every source file but tests, the test helpers, the fallback table itself and the error reporter
 * (renderer/src/reporting: its one button exists only in a reporting test mode, for developers).
 */
function sources(dir: string = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    const name = relative(SRC, path);
    if (entry.isDirectory()) return name === "test" || name === "reporting" ? [] : sources(path);
    if (!/\.tsx?$/.test(entry.name) || /\.test\.tsx?$/.test(entry.name) || name === join("runtime", "copy.ts")) return [];
    return [path];
  });
}

/** The code without comments, which may quote the words they talk about. */
function code(path: string): string {
  return readFileSync(path, "utf8")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
}

/** Lines of a file matching pattern, as "file: line" for a readable failure. */
function findings(pattern: RegExp, accept: (match: RegExpExecArray) => boolean = () => true): string[] {
  return sources().flatMap((path) => {
    const text = code(path);
    const out: string[] = [];
    for (const match of text.matchAll(new RegExp(pattern.source, "g"))) {
      if (accept(match)) out.push(`${relative(SRC, path)}: ${match[0].trim()}`);
    }
    return out;
  });
}

describe("no product copy in the renderer", () => {
  it("finds the sources it scans", () => {
    const names = sources().map((path) => relative(SRC, path));
    expect(names).toContain(join("nodes", "text-input.tsx"));
    expect(names).toContain("app.tsx");
    expect(names).not.toContain(join("runtime", "copy.ts"));
  });

  it("has none of the fallback's words as a string literal outside the fallback table", () => {
    // A fallback text that is also the last part of its key ("days" for countdown.days) is
    // spelled in code as a key, not shown as text; only the other texts are searched for.
    const keyParts = new Set(Object.keys(FALLBACK_COPY).map((key) => key.split(".").at(-1)));
    const words = Object.values(FALLBACK_COPY).filter((text) => !keyParts.has(text));
    expect(words).toContain("Show password");
    const escaped = words.map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
    const literal = new RegExp(`(["'\`])(?:${escaped.join("|")})\\1|>\\s*(?:${escaped.join("|")})\\s*<`);
    expect(findings(literal)).toEqual([]);
  });

  it("writes no words into JSX text or into the attributes people hear", () => {
    // Text between a tag's end and the next tag (not an arrow's "=>" or a comparison's "->").
    const jsxText = findings(/(?<![=-])>([^<>{}]*)<\//, (match) => /[A-Za-z]/.test(match[1] ?? ""));
    // A literal for an accessible name or a visible hint; values from a node or t() are expressions.
    const attributes = findings(/\b(?:aria-label|aria-description|alt|title|placeholder|label)=["'][^"']*[A-Za-z][^"']*["']/);
    expect([...jsxText, ...attributes]).toEqual([]);
  });

  it("keeps the fallback identical to the default brand's renderer.* copy", () => {
    const brand = JSON.parse(readFileSync(repoPath("content", "brands", "default.json"), "utf8")) as {
      copy: Record<string, string>;
    };
    const shipped = Object.fromEntries(
      Object.entries(brand.copy)
        .filter(([key]) => key.startsWith("renderer."))
        .map(([key, text]) => [key.slice("renderer.".length), text]),
    );
    expect(shipped).toEqual(FALLBACK_COPY);
  });
});
