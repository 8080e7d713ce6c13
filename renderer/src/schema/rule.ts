// Zod mirror of the validation rule definition in engine/ui/schema.json.
import * as z from "zod/mini";
import { conditionSchema, pointerSchema } from "./condition";

/** The rule kinds, in the order of the JSON Schema enum. */
export const RULE_KINDS = ["required", "email", "min_length", "max_length", "pattern", "equals"] as const;
export type RuleKind = (typeof RULE_KINDS)[number];

/** A pattern must compile as a Unicode ECMAScript regex (the Go side compiles it as RE2). */
function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern, "u");
    return true;
  } catch {
    return false;
  }
}

const base = {
  message: z.string().check(z.minLength(1)),
  when: z.optional(conditionSchema),
};
const length = z.int().check(z.minimum(0));

export const ruleSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("required"), ...base }),
  z.object({ kind: z.literal("email"), ...base }),
  z.object({ kind: z.literal("min_length"), value: length, ...base }),
  z.object({ kind: z.literal("max_length"), value: length, ...base }),
  z.object({ kind: z.literal("pattern"), value: z.string().check(z.refine(compiles, "pattern does not compile")), ...base }),
  z.object({ kind: z.literal("equals"), path: pointerSchema, ...base }),
]);

export type Rule = z.infer<typeof ruleSchema>;
export type RuleOf<K extends RuleKind> = Extract<Rule, { kind: K }>;
