// The validation rules. Both sides run the same rules (fixtures/rules/*.json):
// every rule tests the value as it is, so an empty value fails email, min_length and pattern;
// lengths count Unicode code points (Go's utf8.RuneCountInString); patterns are unanchored
// Unicode regexes (Go's regexp.MatchString).
import type { Rule, RuleKind, RuleOf } from "../schema/rule";
import { evaluate, jsonEqual } from "./conditions";
import { getPointer } from "./pointer";

/** The email pattern of the protocol, shared with the Go side. */
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** A value as text: strings as they are, numbers and booleans printed, anything else empty. */
function text(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return "";
}

function length(value: unknown): number {
  return Array.isArray(value) ? value.length : Array.from(text(value)).length;
}

/** Missing: undefined, null, a blank string or an empty list. */
export function isMissing(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (typeof value === "string") return value.trim() === "";
  return Array.isArray(value) && value.length === 0;
}

const patterns = new Map<string, RegExp>();

function compiled(pattern: string): RegExp {
  let regex = patterns.get(pattern);
  if (regex === undefined) {
    regex = new RegExp(pattern, "u");
    patterns.set(pattern, regex);
  }
  return regex;
}

type Check<K extends RuleKind> = (value: unknown, rule: RuleOf<K>, state: unknown) => boolean;

/** Whether a value passes each kind of rule. */
export const RULES = {
  required: (value) => !isMissing(value),
  email: (value) => EMAIL_PATTERN.test(text(value)),
  min_length: (value, rule) => length(value) >= rule.value,
  max_length: (value, rule) => length(value) <= rule.value,
  pattern: (value, rule) => compiled(rule.value).test(text(value)),
  equals: (value, rule, state) => jsonEqual(value, getPointer(state, rule.path)),
} satisfies { [K in RuleKind]: Check<K> };

function passes(rule: Rule, value: unknown, state: unknown): boolean {
  const check = RULES[rule.kind] as Check<RuleKind>;
  return check(value, rule, state);
}

/**
 * Every failing rule's message, in rule order; empty when the value is valid. A rule whose `when`
 * is false does not apply. Plain code, not zod: a form checks its fields before the contract's
 * validator (a chunk of its own, runtime/validator.ts) need have arrived.
 */
export function validate(rules: readonly Rule[], value: unknown, state: unknown): string[] {
  return rules.filter((rule) => evaluate(rule.when, state) && !passes(rule, value, state)).map((rule) => rule.message);
}
