// Zod mirror of the JSON Pointer, operand and condition definitions in engine/ui/schema.json.
import * as z from "zod/mini";

/** A JSON Pointer (RFC 6901) into the screen state; the root pointer "" is not allowed. */
export const pointerSchema = z.string().check(z.regex(/^(\/([^/~]|~[01])*)+$/));

/** A literal or a pointer whose value is read from the state. */
export type Operand = string | number | boolean | null | { path: string };

export const operandSchema: z.ZodMiniType<Operand> = z.union([
  z.string(),
  z.number(),
  z.boolean(),
  z.null(),
  z.object({ path: pointerSchema }),
]);

/** The comparison operators, each taking exactly two operands. */
export const COMPARISONS = ["eq", "neq", "gt", "gte", "lt", "lte"] as const;
export type Comparison = (typeof COMPARISONS)[number];

type Pair = [Operand, Operand];

/** `visible` of any node, `disabledWhen` of a button, `when` of a rule. */
export type Condition =
  | boolean
  | { path: string }
  | { not: Condition }
  | { and: Condition[] }
  | { or: Condition[] }
  | { eq: Pair }
  | { neq: Pair }
  | { gt: Pair }
  | { gte: Pair }
  | { lt: Pair }
  | { lte: Pair }
  | { in: [Operand, unknown[]] };

const pair = z.tuple([operandSchema, operandSchema]);

export const conditionSchema: z.ZodMiniType<Condition> = z.lazy(() =>
  z.union([
    z.boolean(),
    z.object({ path: pointerSchema }),
    z.object({ not: conditionSchema }),
    z.object({ and: z.array(conditionSchema) }),
    z.object({ or: z.array(conditionSchema) }),
    z.object({ eq: pair }),
    z.object({ neq: pair }),
    z.object({ gt: pair }),
    z.object({ gte: pair }),
    z.object({ lt: pair }),
    z.object({ lte: pair }),
    z.object({ in: z.tuple([operandSchema, z.array(z.unknown())]) }),
  ]),
);
