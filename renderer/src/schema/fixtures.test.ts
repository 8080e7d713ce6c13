// Every golden screen the Go side writes (fixtures/screens/**/*.json) must parse with the zod
// envelope schema, and every node in it with its node schema, strictly: no node may fall back,
// and nothing may be stripped as unknown.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { repoPath } from "../test/paths";
import { actionResultSchema, envelopeSchema } from "./envelope";
import { childSlots, escapeToken, nodeProblem, parseAction, parseNodeStrict } from "./parse";

const root = repoPath("fixtures", "screens");

function jsonFiles(directory: string): string[] {
  if (!existsSync(directory)) return [];
  return readdirSync(directory, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".json"))
    .map((name) => join(directory, name))
    .sort();
}

/** Keys of `raw` (at any depth) that parsing dropped: typos the client would silently ignore. */
function stripped(raw: unknown, parsed: unknown, pointer: string): string[] {
  if (typeof raw !== "object" || raw === null || typeof parsed !== "object" || parsed === null) return [];
  const before = raw as Record<string, unknown>;
  const after = parsed as Record<string, unknown>;
  return Object.keys(before).flatMap((key) => {
    const at = `${pointer}/${escapeToken(key)}`;
    return Object.hasOwn(after, key) ? stripped(before[key], after[key], at) : [at];
  });
}

/** Every problem in the node tree at `pointer`. */
function nodeProblems(raw: unknown, pointer: string): string[] {
  const node = parseNodeStrict(raw);
  if (node === null) return [`${pointer}: ${nodeProblem(raw) ?? "invalid"}`];
  const own = stripped(raw, node, pointer).map((key) => `${key}: unknown key`);
  return [...own, ...childSlots(node, true).flatMap((slot) => nodeProblems(slot.raw, pointer + slot.suffix))];
}

function envelopeProblems(document: unknown): string[] {
  const envelope = envelopeSchema.safeParse(document);
  if (!envelope.success) {
    // A guard's redirect answers an action result instead of a screen.
    const result = actionResultSchema.safeParse(document);
    if (!result.success || (document as Record<string, unknown>).v !== undefined) {
      return [`envelope: ${envelope.error.issues.map((issue) => `${issue.path.join("/")} ${issue.message}`).join("; ")}`];
    }
    const logs: string[] = [];
    (result.data.effects ?? []).forEach((effect, index) => parseAction(effect, `/effects/${index}`, (m) => logs.push(m)));
    return [...stripped(document, result.data, ""), ...logs];
  }
  const { screen, overlays = {} } = envelope.data;
  return [
    ...stripped(document, envelope.data, "").filter((key) => !/^\/(screen|overlays|state)\//.test(key)),
    ...(screen.type === "screen" ? [] : ["/screen: not a screen node"]),
    ...nodeProblems(screen, "/screen"),
    ...Object.entries(overlays).flatMap(([id, dialog]) => [
      ...(dialog.type === "dialog" ? [] : [`/overlays/${escapeToken(id)}: not a dialog node`]),
      ...nodeProblems(dialog, `/overlays/${escapeToken(id)}`),
    ]),
  ];
}

const files = jsonFiles(root);

describe("golden screen fixtures", () => {
  // Without this, a moved or deleted fixtures directory would leave every check below with
  // nothing to check, and the suite green. The Go golden test writes one file per screen and
  // state, plus a partner brand's where it differs: dozens.
  it("finds the golden screens the Go side writes", () => {
    expect(existsSync(root)).toBe(true);
    expect(files.length).toBeGreaterThanOrEqual(20);
    expect(files.map((file) => relative(root, file))).toContain("sign-in__default.json");
  });

  it("flags a node that would fall back, and an unknown key", () => {
    const document = {
      v: 1,
      screen: {
        type: "screen",
        id: "s",
        title: "t",
        children: [{ type: "text", text: "ok", colour: "red" }, { type: "hologram" }],
      },
      meta: { serverNow: "2026-03-01T10:00:00Z", brand: { key: "k", name: "n", theme: {} } },
    };
    const problems = envelopeProblems(document);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toContain("/screen/children/0/colour");
    expect(problems[1]).toContain("/screen/children/1");
  });

  it.each(files.map((file) => [relative(root, file), file]))("%s parses strictly", (_name, file) => {
    expect(envelopeProblems(JSON.parse(readFileSync(file, "utf8")))).toEqual([]);
  });
});
