// Actions: generated from engine/ui/schema.json (contract.gen.ts), which writes the recursive
// Action union out because actions nest (after, sequence).
import type { Action, ACTION_TYPES } from "./contract.gen";

export { type Action, actionSchema, ACTION_TYPES } from "./contract.gen";
export type ActionType = (typeof ACTION_TYPES)[number];
export type ActionOf<T extends ActionType> = Extract<Action, { type: T }>;
