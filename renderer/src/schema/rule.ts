// Validation rules: generated from engine/ui/schema.json (contract.gen.ts), plus one check the
// JSON Schema cannot state: a pattern rule's value must compile as a Unicode ECMAScript regex
// (the Go side compiles it as RE2). schema.json only says it is a string.
import * as z from "zod/mini";
import type { RULE_KINDS } from "./contract.gen";
import { ruleSchema as generated } from "./contract.gen";

export { RULE_KINDS } from "./contract.gen";
export type RuleKind = (typeof RULE_KINDS)[number];

function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern, "u");
    return true;
  } catch {
    return false;
  }
}

export const ruleSchema = generated.check(
  z.refine((rule) => rule.kind !== "pattern" || compiles(rule.value), {
    message: "pattern does not compile",
    path: ["value"],
  }),
);

export type Rule = z.infer<typeof ruleSchema>;
export type RuleOf<K extends RuleKind> = Extract<Rule, { kind: K }>;
