// Zod mirror of every node definition in engine/ui/schema.json. Nodes are parsed one by one:
// a slot that holds a child node is kept raw here and parsed when it renders, so one bad node
// never fails its parent (see parse.ts).
import * as z from "zod/mini";
import { actionSchema } from "./action";
import { conditionSchema, pointerSchema } from "./condition";
import { ruleSchema } from "./rule";

/** The node types, in the order of the JSON Schema enum. */
export const NODE_TYPES = [
  "screen",
  "header",
  "footer",
  "stack",
  "row",
  "text",
  "rich_text",
  "image",
  "icon",
  "button",
  "link",
  "card",
  "list",
  "list_item",
  "divider",
  "badge",
  "stat_tile",
  "level_meter",
  "chart",
  "file_input",
  "post_list",
  "countdown",
  "loader",
  "banner",
  "form",
  "form_error",
  "text_input",
  "textarea",
  "choice_list",
  "rating",
  "dialog",
  "steps",
  "empty_state",
] as const;
export type NodeType = (typeof NODE_TYPES)[number];

/** The icon names of the schema's icon enum. */
export const ICON_NAMES = [
  "back",
  "menu",
  "close",
  "chevron",
  "clock",
  "lock",
  "check",
  "alert",
  "star",
  "logout",
  "mail",
  "shield",
  "news",
  "course",
  "insights",
  "eye",
  "search",
] as const;
export type IconName = (typeof ICON_NAMES)[number];

export const TONES = ["neutral", "info", "positive", "warning", "danger", "brand"] as const;
export type Tone = (typeof TONES)[number];

const tone = z.optional(z.enum(TONES));
const gap = z.optional(z.enum(["none", "xs", "sm", "md", "lg", "xl"]));
const align = z.optional(z.enum(["start", "center", "end", "stretch"]));
const dateTime = z.iso.datetime({ offset: true });
const text = z.string();
const optionalText = z.optional(z.string());
const nonEmpty = z.string().check(z.minLength(1));
const flag = z.optional(z.boolean());
const action = z.optional(actionSchema);
const rules = z.optional(z.array(ruleSchema));
const url = (pattern: RegExp) => z.string().check(z.regex(pattern));
const between = (min: number, max?: number) =>
  max === undefined ? z.int().check(z.minimum(min)) : z.int().check(z.minimum(min), z.maximum(max));

/** A child node, kept raw: it is parsed on its own when rendered. */
const slot = z.optional(z.unknown());
const slots = z.array(z.unknown());

export const imageRefSchema = z.object({
  src: url(/^(\/([^/\\]|$)|https:\/\/)/),
  alt: text,
});
export type ImageRef = z.infer<typeof imageRefSchema>;

export const chartPointSchema = z.object({
  x: nonEmpty,
  y: z.number(),
  yLabel: nonEmpty,
});

export const postSchema = z.object({
  image: imageRefSchema,
  dateLabel: text,
  countLabel: text,
  date: z.optional(dateTime),
});
export type Post = z.infer<typeof postSchema>;

export const spanSchema = z.object({
  text,
  strong: flag,
  em: flag,
  href: z.optional(url(/^(https:\/\/|mailto:|\/([^/\\]|$))/)),
});
export type Span = z.infer<typeof spanSchema>;

export const richBlockSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("heading"), level: between(2, 4), spans: z.array(spanSchema) }),
  z.object({ kind: z.literal("paragraph"), spans: z.array(spanSchema) }),
  z.object({ kind: z.literal("list"), ordered: flag, items: z.array(z.array(spanSchema)) }),
]);
export type RichBlock = z.infer<typeof richBlockSchema>;

const base = {
  id: z.optional(nonEmpty),
  visible: z.optional(conditionSchema),
  fallback: slot,
};

const option = z.object({
  value: text,
  label: nonEmpty,
  description: optionalText,
});

/** One zod object per node type, keyed by type. */
export const NODE_SCHEMAS = {
  screen: z.object({
    type: z.literal("screen"),
    ...base,
    id: nonEmpty,
    title: text,
    header: slot,
    children: slots,
    footer: slot,
    layout: z.optional(z.enum(["page", "sub", "bare", "centered"])),
    onLoad: action,
  }),
  header: z.object({
    type: z.literal("header"),
    ...base,
    title: optionalText,
    back: action,
    backLabel: optionalText,
    logo: z.optional(imageRefSchema),
    menu: z.optional(nonEmpty),
    menuLabel: optionalText,
    elevateOnScroll: flag,
  }),
  footer: z.object({
    type: z.literal("footer"),
    ...base,
    title: optionalText,
    subtitle: optionalText,
    children: z.optional(slots),
  }),
  stack: z.object({
    type: z.literal("stack"),
    ...base,
    children: slots,
    gap,
    align,
    tone,
    padded: flag,
  }),
  row: z.object({
    type: z.literal("row"),
    ...base,
    children: slots,
    gap,
    align,
    justify: z.optional(z.enum(["start", "center", "end", "between"])),
    wrap: flag,
  }),
  text: z.object({
    type: z.literal("text"),
    ...base,
    text,
    style: z.optional(z.enum(["display", "title", "heading", "subheading", "body", "caption", "label", "overline"])),
    tone,
    align: z.optional(z.enum(["start", "center", "end"])),
    live: z.optional(z.enum(["polite", "assertive"])),
  }),
  rich_text: z.object({
    type: z.literal("rich_text"),
    ...base,
    blocks: z.array(richBlockSchema),
  }),
  image: z.object({
    type: z.literal("image"),
    ...base,
    src: url(/^(\/([^/\\]|$)|https:\/\/)/),
    alt: text,
    aspect: z.optional(z.enum(["square", "landscape", "portrait", "wide", "auto"])),
    fit: z.optional(z.enum(["cover", "contain"])),
    size: z.optional(z.enum(["sm", "md", "lg", "full"])),
  }),
  icon: z.object({
    type: z.literal("icon"),
    ...base,
    name: z.enum(ICON_NAMES),
    label: optionalText,
    tone,
    size: z.optional(z.enum(["sm", "md", "lg"])),
  }),
  button: z.object({
    type: z.literal("button"),
    ...base,
    label: nonEmpty,
    action: actionSchema,
    emphasis: z.optional(z.enum(["primary", "secondary", "tertiary"])),
    tone,
    icon: optionalText,
    disabledWhen: z.optional(conditionSchema),
  }),
  link: z.object({
    type: z.literal("link"),
    ...base,
    label: nonEmpty,
    action: actionSchema,
    tone,
    icon: optionalText,
  }),
  card: z.object({
    type: z.literal("card"),
    ...base,
    children: slots,
    action,
    actionLabel: optionalText,
    tone,
    image: z.optional(imageRefSchema),
  }),
  list: z.object({
    type: z.literal("list"),
    ...base,
    children: slots,
    divided: flag,
    ordered: flag,
    label: optionalText,
  }),
  list_item: z.object({
    type: z.literal("list_item"),
    ...base,
    title: text,
    subtitle: optionalText,
    leading: slot,
    trailing: slot,
    action,
  }),
  divider: z.object({
    type: z.literal("divider"),
    ...base,
  }),
  badge: z.object({
    type: z.literal("badge"),
    ...base,
    label: nonEmpty,
    tone,
  }),
  stat_tile: z.object({
    type: z.literal("stat_tile"),
    ...base,
    label: nonEmpty,
    value: z.nullable(text),
    caption: optionalText,
    action,
    pendingLabel: optionalText,
  }),
  level_meter: z.object({
    type: z.literal("level_meter"),
    ...base,
    label: nonEmpty,
    level: between(0, 5),
    valueLabel: optionalText,
    status: optionalText,
  }),
  chart: z.object({
    type: z.literal("chart"),
    ...base,
    label: nonEmpty,
    points: z.array(chartPointSchema).check(z.minLength(1)),
  }),
  file_input: z.object({
    type: z.literal("file_input"),
    ...base,
    id: nonEmpty,
    label: nonEmpty,
    accept: optionalText,
    help: optionalText,
    maxBytes: z.optional(between(1)),
    requiredMessage: nonEmpty,
    tooLargeMessage: z.optional(nonEmpty),
  }),
  post_list: z.object({
    type: z.literal("post_list"),
    ...base,
    label: optionalText,
    posts: z.array(postSchema),
  }),
  countdown: z.object({
    type: z.literal("countdown"),
    ...base,
    endsAt: dateTime,
    label: optionalText,
    onExpire: action,
  }),
  loader: z.object({
    type: z.literal("loader"),
    ...base,
    label: nonEmpty,
    fullscreen: flag,
  }),
  banner: z.object({
    type: z.literal("banner"),
    ...base,
    tone,
    title: optionalText,
    text: optionalText,
    children: z.optional(slots),
    sticky: z.optional(z.enum(["top", "bottom"])),
  }),
  form: z.object({
    type: z.literal("form"),
    ...base,
    id: nonEmpty,
    children: slots,
    submit: actionSchema,
  }),
  form_error: z.object({
    type: z.literal("form_error"),
    ...base,
    form: nonEmpty,
  }),
  text_input: z.object({
    type: z.literal("text_input"),
    ...base,
    id: nonEmpty,
    bind: pointerSchema,
    label: nonEmpty,
    kind: z.optional(z.enum(["text", "email", "password"])),
    placeholder: optionalText,
    autocomplete: optionalText,
    rules,
    disabled: flag,
  }),
  textarea: z.object({
    type: z.literal("textarea"),
    ...base,
    id: nonEmpty,
    bind: pointerSchema,
    label: nonEmpty,
    placeholder: optionalText,
    rows: z.optional(between(1, 20)),
    maxLength: z.optional(between(1)),
    rules,
  }),
  choice_list: z.object({
    type: z.literal("choice_list"),
    ...base,
    id: nonEmpty,
    bind: pointerSchema,
    label: nonEmpty,
    options: z.array(option).check(z.minLength(1)),
    rules,
  }),
  rating: z.object({
    type: z.literal("rating"),
    ...base,
    id: nonEmpty,
    bind: pointerSchema,
    label: nonEmpty,
    max: z.optional(between(1, 10)),
  }),
  dialog: z.object({
    type: z.literal("dialog"),
    ...base,
    id: nonEmpty,
    presentation: z.optional(z.enum(["modal", "fullscreen", "drawer"])),
    title: optionalText,
    children: slots,
    dismissible: flag,
    closeLabel: optionalText,
    onClose: action,
  }),
  steps: z.object({
    type: z.literal("steps"),
    ...base,
    id: nonEmpty,
    bind: pointerSchema,
    steps: z.array(z.object({ id: nonEmpty, children: slots })).check(z.minLength(1)),
  }),
  empty_state: z.object({
    type: z.literal("empty_state"),
    ...base,
    title: nonEmpty,
    text: optionalText,
    icon: optionalText,
    action,
    actionLabel: optionalText,
  }),
} satisfies { [K in NodeType]: z.ZodMiniType<{ type: K }> };

export type NodeOf<K extends NodeType> = z.infer<(typeof NODE_SCHEMAS)[K]>;
export type AnyNode = { [K in NodeType]: NodeOf<K> }[NodeType];
