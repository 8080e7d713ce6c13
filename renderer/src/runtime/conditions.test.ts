import { describe, expect, it } from "vitest";
import type { Condition } from "../schema/condition";
import { evaluate, jsonEqual } from "./conditions";

const state = {
  form: { reason: "other", count: 3, empty: "", zero: 0, list: [1, 2], nested: { a: 1 } },
  plan: "premium_one_month",
  flag: true,
};

const cases: [string, Condition | undefined, boolean][] = [
  ["absent is true", undefined, true],
  ["literal true", true, true],
  ["literal false", false, false],
  ["truthy path", { path: "/flag" }, true],
  ["empty string is falsy", { path: "/form/empty" }, false],
  ["zero is falsy", { path: "/form/zero" }, false],
  ["missing is falsy", { path: "/nope" }, false],
  ["not", { not: { path: "/flag" } }, false],
  ["and", { and: [true, { path: "/flag" }] }, true],
  ["and with a false", { and: [true, false] }, false],
  ["empty and", { and: [] }, true],
  ["or", { or: [false, { path: "/flag" }] }, true],
  ["empty or", { or: [] }, false],
  ["eq literal", { eq: [{ path: "/form/reason" }, "other"] }, true],
  ["eq mismatch", { eq: [{ path: "/form/reason" }, "price"] }, false],
  ["eq two paths", { eq: [{ path: "/form/count" }, { path: "/form/count" }] }, true],
  ["eq null against missing", { eq: [{ path: "/nope" }, null] }, false],
  ["neq", { neq: [{ path: "/form/reason" }, "price"] }, true],
  ["gt", { gt: [{ path: "/form/count" }, 2] }, true],
  ["gte", { gte: [{ path: "/form/count" }, 3] }, true],
  ["lt", { lt: [{ path: "/form/count" }, 3] }, false],
  ["lte", { lte: [{ path: "/form/count" }, 3] }, true],
  ["strings order", { lt: ["a", "b"] }, true],
  ["mixed types never order", { gt: [{ path: "/form/count" }, "1"] }, false],
  ["in", { in: [{ path: "/plan" }, ["gift_one_month", "premium_one_month"]] }, true],
  ["not in", { in: [{ path: "/plan" }, ["weekly"]] }, false],
  ["in compares structurally", { in: [{ path: "/form/list" }, [[1, 2]]] }, true],
];

describe("conditions", () => {
  it.each(cases)("%s", (_name, condition, expected) => {
    expect(evaluate(condition, state)).toBe(expected);
  });

  it("uses the fallback for an absent condition", () => {
    expect(evaluate(undefined, state, false)).toBe(false);
  });

  it("compares JSON structurally", () => {
    expect(jsonEqual({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] })).toBe(true);
    expect(jsonEqual({ a: 1 }, { a: 1, b: undefined })).toBe(false);
    expect(jsonEqual([1], { 0: 1 })).toBe(false);
    expect(jsonEqual(null, {})).toBe(false);
  });
});
