// Zod mirror of the action definitions in engine/ui/schema.json. The TypeScript union is
// written out because actions nest (after, sequence); the compiler checks it against the schema.
import * as z from "zod/mini";
import { pointerSchema } from "./condition";

/** The action types, in the order of the JSON Schema enum. */
export const ACTION_TYPES = [
  "navigate",
  "replace",
  "back",
  "open_url",
  "submit",
  "open_overlay",
  "close_overlay",
  "set_state",
  "after",
  "download",
  "sign_out",
  "track",
  "reload",
  "refresh",
  "sequence",
  "upload",
] as const;
export type ActionType = (typeof ACTION_TYPES)[number];

export type Action =
  | { type: "navigate"; to: string }
  | { type: "replace"; to: string }
  | { type: "back"; fallback?: string | undefined }
  | { type: "open_url"; url: string; newWindow?: boolean | undefined }
  | {
      type: "submit";
      action: string;
      form?: string | undefined;
      include?: string[] | undefined;
      validate?: "form" | "none" | undefined;
    }
  | { type: "open_overlay"; id: string }
  | { type: "close_overlay"; id?: string | undefined }
  | { type: "set_state"; path: string; value: unknown }
  | { type: "after"; ms: number; then: Action }
  | { type: "download"; url: string; filename?: string | undefined }
  | { type: "sign_out" }
  | { type: "track"; event: string; props?: Record<string, unknown> | undefined }
  | { type: "reload" }
  | { type: "refresh" }
  | { type: "sequence"; actions: Action[] }
  | { type: "upload"; action: string; input: string };

export type ActionOf<T extends ActionType> = Extract<Action, { type: T }>;

const nonEmpty = z.string().check(z.minLength(1));
// An app path: one leading slash, never a protocol-relative //host.
const localPath = z.string().check(z.regex(/^\/([^/\\]|$)/));

export const actionSchema: z.ZodMiniType<Action> = z.lazy(() =>
  z.discriminatedUnion("type", [
    z.object({ type: z.literal("navigate"), to: localPath }),
    z.object({ type: z.literal("replace"), to: localPath }),
    z.object({ type: z.literal("back"), fallback: z.optional(localPath) }),
    z.object({
      type: z.literal("open_url"),
      url: z.string().check(z.regex(/^(https:\/\/|mailto:|\/([^/\\]|$))/)),
      newWindow: z.optional(z.boolean()),
    }),
    z.object({
      type: z.literal("submit"),
      action: z.string().check(z.regex(/^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$/)),
      form: z.optional(z.string()),
      include: z.optional(z.array(pointerSchema)),
      validate: z.optional(z.enum(["form", "none"])),
    }),
    z.object({ type: z.literal("open_overlay"), id: nonEmpty }),
    z.object({ type: z.literal("close_overlay"), id: z.optional(nonEmpty) }),
    z.object({ type: z.literal("set_state"), path: pointerSchema, value: z.unknown() }),
    z.object({ type: z.literal("after"), ms: z.int().check(z.minimum(0), z.maximum(600000)), then: actionSchema }),
    z.object({ type: z.literal("download"), url: localPath, filename: z.optional(z.string()) }),
    z.object({ type: z.literal("sign_out") }),
    z.object({
      type: z.literal("track"),
      event: nonEmpty,
      props: z.optional(z.record(z.string(), z.unknown())),
    }),
    z.object({ type: z.literal("reload") }),
    z.object({ type: z.literal("refresh") }),
    z.object({ type: z.literal("sequence"), actions: z.array(actionSchema).check(z.minLength(1)) }),
    z.object({
      type: z.literal("upload"),
      action: z.string().check(z.regex(/^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$/)),
      input: nonEmpty,
    }),
  ]),
);
