// Zod mirror of the brand, meta, envelope and action_result definitions in engine/ui/schema.json.
// The envelope is parsed shallowly: the screen and the overlays are parsed node by node when
// they render, and effects action by action when they run.
import * as z from "zod/mini";
import { imageRefSchema } from "./node";

const nonEmpty = z.string().check(z.minLength(1));

export const brandSchema = z.object({
  key: nonEmpty,
  name: nonEmpty,
  tagline: z.optional(z.string()),
  logo: z.optional(imageRefSchema),
  supportEmail: z.optional(z.string()),
  theme: z.record(z.string().check(z.regex(/^[a-z][a-zA-Z0-9]*$/)), z.string().check(z.regex(/^#[0-9a-fA-F]{6}$/))),
});
export type Brand = z.infer<typeof brandSchema>;

export const metaSchema = z.object({
  serverNow: z.iso.datetime({ offset: true }),
  traceId: z.optional(z.string()),
  brand: brandSchema,
  csrf: z.optional(z.string()),
  version: z.optional(z.string()),
  experiments: z.optional(z.array(z.object({ key: z.string(), variant: z.string() }))),
});
export type Meta = z.infer<typeof metaSchema>;

const rawObject = z.record(z.string(), z.unknown());

export const envelopeSchema = z.object({
  v: z.literal(1),
  screen: rawObject,
  overlays: z.optional(z.record(z.string(), rawObject)),
  state: z.optional(rawObject),
  meta: metaSchema,
  open: z.optional(z.array(nonEmpty)),
});
export type Envelope = z.infer<typeof envelopeSchema>;

export const actionResultSchema = z.object({
  effects: z.optional(z.array(z.unknown())),
  errors: z.optional(
    z.object({
      fields: z.optional(z.record(z.string(), z.string())),
      form: z.optional(z.string()),
    }),
  ),
  reload: z.optional(z.boolean()),
});
export type ActionResult = z.infer<typeof actionResultSchema>;
