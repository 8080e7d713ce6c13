// The server draws a page's first screen as HTML (engine/ui/prerender) so it paints before this
// bundle has loaded; the renderer then replaces that markup with its own. Each golden the Go side
// writes (fixtures/prerender/<screen>.html) must be what the app renders for the same envelope
// (fixtures/screens/<screen>.json), or the page would change under the reader when it mounts.
// Both are compared as DOM trees: attribute order and ids (React's useId against the server's own
// numbering) may differ, nothing else.
import { readdirSync, readFileSync } from "node:fs";
import { act } from "@testing-library/react";
import { hydrateRoot } from "react-dom/client";
import { afterEach, describe, expect, it, vi } from "vitest";
import { App } from "./app";
import { FIRST_SCREEN_ID } from "./runtime/api";
import type { Runtime } from "./runtime/runtime";
import { createValidatorLoader } from "./runtime/validator";
import { fakeServer, makeEngine, renderApp, stopEngines } from "./test/harness";
import { repoPath } from "./test/paths";

const goldens = readdirSync(repoPath("fixtures", "prerender"))
  .filter((name) => name.endsWith(".html"))
  .sort();

// Attributes whose value is an element id (or a list of them).
const ID_REFS = new Set(["id", "for", "aria-labelledby", "aria-describedby", "aria-controls"]);

/** An element tree written with sorted attributes and ids renamed in order of appearance. */
function canonical(root: Element): string {
  const ids = new Map<string, string>();
  const rename = (value: string): string =>
    value
      .split(" ")
      .map((id) => {
        if (!ids.has(id)) ids.set(id, `id${ids.size + 1}`);
        return ids.get(id) ?? id;
      })
      .join(" ");
  const write = (node: Node): string => {
    // React writes "{x}: {y}" as three text nodes (with comments between them in server markup).
    if (node.nodeType === Node.TEXT_NODE) return node.textContent ?? "";
    if (!(node instanceof Element)) return "";
    const attributes = [...node.attributes]
      .map((a) => `${a.name}=${JSON.stringify(ID_REFS.has(a.name) ? rename(a.value) : a.value)}`)
      .sort();
    // React sets an input's value as a property; the markup carries it as an attribute.
    if (node instanceof HTMLInputElement && !node.hasAttribute("value")) attributes.push(`value=${JSON.stringify(node.value)}`);
    attributes.sort();
    const kids = [...node.childNodes].map(write).join("");
    return `<${node.tagName.toLowerCase()} ${attributes.join(" ")}>${kids}</${node.tagName.toLowerCase()}>`;
  };
  return [...root.childNodes].map(write).join("\n");
}

afterEach(() => stopEngines());

describe("the server's first paint", () => {
  it("covers the sign-in page and the dashboard", () => {
    expect(goldens).toEqual(expect.arrayContaining(["sign-in__default.html", "home__weekly__default.html"]));
  });

  it.each(goldens)("%s is what the renderer draws", async (golden) => {
    const envelope: unknown = JSON.parse(
      readFileSync(repoPath("fixtures", "screens", golden.replace(/\.html$/, ".json")), "utf8"),
    );
    const { container } = await renderApp(() => envelope);
    const server = document.createElement("div");
    server.innerHTML = readFileSync(repoPath("fixtures", "prerender", golden), "utf8").trimEnd();
    expect(canonical(server)).toBe(canonical(container));
  });
});

describe("adopting the server's first paint", () => {
  // As the page has it: the envelope in the page's data block, the contract's validator (a chunk
  // of its own) not here yet, so the nodes render as the server wrote them; and, as any later
  // screen, fetched and checked.
  const ways = ["from the page, before the validator", "checked"] as const;
  it.each(goldens.flatMap((golden) => ways.map((how) => [golden, how] as const)))(
    "the renderer hydrates %s with no mismatch (%s)",
    async (golden, how) => {
      const envelope: unknown = JSON.parse(
        readFileSync(repoPath("fixtures", "screens", golden.replace(/\.html$/, ".json")), "utf8"),
      );
      const markup = readFileSync(repoPath("fixtures", "prerender", golden), "utf8").trimEnd();
      const container = document.createElement("div");
      container.innerHTML = markup;
      document.body.append(container);
      const block = document.createElement("script");
      let runtime: Runtime;
      if (how === "checked") {
        runtime = makeEngine(fakeServer(() => ({ body: envelope })));
      } else {
        block.type = "application/json";
        block.id = FIRST_SCREEN_ID;
        // No date: the envelope's own serverNow stands, as in the fetched case.
        block.textContent = JSON.stringify({ date: "", csrf: "page-token", screens: { "/": envelope } });
        document.body.append(block);
        const never = createValidatorLoader(() => new Promise(() => undefined));
        runtime = makeEngine(fakeServer(() => "network-error"), window, never);
      }
      await act(() => runtime.start());
      expect(runtime.validator.current() === null).toBe(how !== "checked");
      const mismatches: unknown[] = [];
      // React reports in development the attributes it leaves as the server wrote them: the ids
      // (its own useId numbering differs from the server's; both are consistent within the page).
      const warnings = vi.spyOn(console, "error").mockImplementation(() => undefined);
      const first = container.firstElementChild;
      const root = await act(() =>
        hydrateRoot(container, <App runtime={runtime} />, { onRecoverableError: (error) => mismatches.push(error) }),
      );
      // No mismatch made React draw the screen again: the server's elements are the app's.
      expect(mismatches).toEqual([]);
      expect(container.firstElementChild).toBe(first);
      const unexpected = warnings.mock.calls.map((call) => call.map(String).join(" ")).filter((text) => !/\bid=|htmlFor|aria-labelledby/.test(text) || !/didn't match/.test(text));
      expect(unexpected).toEqual([]);
      warnings.mockRestore();
      act(() => root.unmount());
      container.remove();
      block.remove();
    },
  );
});
