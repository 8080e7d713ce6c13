import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as z from "zod/mini";
import { ruleSchema, RULE_KINDS } from "../schema/rule";
import { repoPath } from "../test/paths";
import { EMAIL_PATTERN, isMissing, RULES, validate } from "./rules";

const parityFile = repoPath("fixtures", "rules", "parity.json");

const parityCase = z.object({
  name: z.string(),
  rules: z.array(ruleSchema),
  value: z.unknown(),
  state: z.record(z.string(), z.unknown()),
  valid: z.boolean(),
  messages: z.array(z.string()),
});
const cases = z.array(parityCase).parse(JSON.parse(readFileSync(parityFile, "utf8")));

describe("rules", () => {
  it("implements every rule kind", () => {
    expect(Object.keys(RULES).sort()).toEqual([...RULE_KINDS].sort());
  });

  it("uses the same email pattern as the server", () => {
    const goRules = readFileSync(repoPath("engine", "ui", "rules.go"), "utf8");
    const server = /const EmailPattern = `([^`]+)`/.exec(goRules)?.[1];
    expect(server).toBeDefined();
    expect(EMAIL_PATTERN.source).toBe(server);
  });

  it("treats undefined, null, blank text and empty lists as missing", () => {
    expect([undefined, null, "", " ", []].every(isMissing)).toBe(true);
    expect([0, false, "a", [1]].some(isMissing)).toBe(false);
  });

  it("gives each failing rule's message, in order, and skips a rule whose when is false", () => {
    const rules = [
      { kind: "min_length", value: 2, message: "Too short" },
      { kind: "email", message: "Not an email", when: { path: "/strict" } },
    ] as const;
    expect(validate(rules, "ab", {})).toEqual([]);
    expect(validate(rules, "a", {})).toEqual(["Too short"]);
    expect(validate(rules, "a", { strict: true })).toEqual(["Too short", "Not an email"]);
  });

  it("rejects a pattern that does not compile", () => {
    expect(ruleSchema.safeParse({ kind: "pattern", value: "(", message: "x" }).success).toBe(false);
  });

  it("covers every rule kind in the parity fixtures", () => {
    const kinds = new Set(cases.flatMap((testCase) => testCase.rules.map((rule) => rule.kind)));
    expect([...kinds].sort()).toEqual([...RULE_KINDS].sort());
    expect(cases.some((testCase) => testCase.rules.some((rule) => rule.when !== undefined))).toBe(true);
  });

  describe("parity with the Go side (fixtures/rules/parity.json)", () => {
    it.each(cases.map((testCase) => [testCase.name, testCase] as const))("%s", (_name, testCase) => {
      const messages = validate(testCase.rules, testCase.value, testCase.state);
      expect(messages).toEqual(testCase.messages);
      expect(messages.length === 0).toBe(testCase.valid);
    });
  });
});
