// The contract's validator as one module: zod and the schemas generated from schema.json. The
// runtime loads it as a chunk of its own that the page does not name (runtime/validator.ts), so
// the first screen paints and hydrates without it; nothing outside schema/ imports it statically.
export { actionResultSchema, envelopeSchema } from "./envelope";
export { parseAction, parseNode, treeParses } from "./parse";
