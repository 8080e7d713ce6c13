// Brand, meta, envelope and action_result: generated from engine/ui/schema.json
// (contract.gen.ts). The envelope is parsed shallowly: the screen and the overlays are parsed
// node by node when they render, and effects action by action when they run.
export {
  type ActionResult,
  actionResultSchema,
  type Brand,
  brandSchema,
  type Envelope,
  envelopeSchema,
  type Meta,
  metaSchema,
} from "./contract.gen";
