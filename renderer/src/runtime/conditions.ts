// Evaluates `visible`, `disabledWhen` and rule `when` conditions against the screen state.
import type { Condition, Operand } from "../schema/condition";
import { getPointer } from "./pointer";

/** Truthiness of a `{path}` condition: JavaScript's, so "", 0, null and a missing value are false. */
export function truthy(value: unknown): boolean {
  return Boolean(value);
}

function resolve(operand: Operand, state: unknown): unknown {
  return typeof operand === "object" && operand !== null ? getPointer(state, operand.path) : operand;
}

/** Structural equality of JSON values. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, index) => jsonEqual(item, b[index]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  return (
    keys.length === Object.keys(right).length &&
    keys.every((key) => Object.hasOwn(right, key) && jsonEqual(left[key], right[key]))
  );
}

/** Orders two numbers or two strings; anything else is not comparable (every ordering is false). */
function order(a: unknown, b: unknown): number | null {
  if (typeof a === "number" && typeof b === "number") return a - b;
  if (typeof a === "string" && typeof b === "string") return a < b ? -1 : a > b ? 1 : 0;
  return null;
}

function compare(pair: [Operand, Operand], state: unknown, test: (ordering: number) => boolean): boolean {
  const ordering = order(resolve(pair[0], state), resolve(pair[1], state));
  return ordering !== null && test(ordering);
}

/** Evaluates a condition; an absent condition is `fallback` (true for `visible`). */
export function evaluate(condition: Condition | undefined, state: unknown, fallback = true): boolean {
  if (condition === undefined) return fallback;
  if (typeof condition === "boolean") return condition;
  if ("path" in condition) return truthy(getPointer(state, condition.path));
  if ("not" in condition) return !evaluate(condition.not, state);
  if ("and" in condition) return condition.and.every((item) => evaluate(item, state));
  if ("or" in condition) return condition.or.some((item) => evaluate(item, state));
  if ("eq" in condition) return jsonEqual(resolve(condition.eq[0], state), resolve(condition.eq[1], state));
  if ("neq" in condition) return !jsonEqual(resolve(condition.neq[0], state), resolve(condition.neq[1], state));
  if ("gt" in condition) return compare(condition.gt, state, (o) => o > 0);
  if ("gte" in condition) return compare(condition.gte, state, (o) => o >= 0);
  if ("lt" in condition) return compare(condition.lt, state, (o) => o < 0);
  if ("lte" in condition) return compare(condition.lte, state, (o) => o <= 0);
  const [needle, haystack] = condition.in;
  const value = resolve(needle, state);
  return haystack.some((item) => jsonEqual(item, value));
}
