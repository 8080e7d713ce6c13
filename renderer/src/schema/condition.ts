// JSON Pointer, operand and condition: generated from engine/ui/schema.json (contract.gen.ts).
export { type Condition, conditionSchema, type Operand, operandSchema, pointerSchema } from "./contract.gen";
