// Nodes: generated from engine/ui/schema.json (contract.gen.ts). Nodes are parsed one by one:
// a slot that holds a child node is kept raw and parsed when it renders, so one bad node never
// fails its parent (see parse.ts).
import type * as z from "zod/mini";
import { NODE_ICON_NAME_VALUES, type NODE_SCHEMAS, type NodeType } from "./contract.gen";

export {
  type ChartPoint,
  chartPointSchema,
  type ImageRef,
  imageRefSchema,
  NODE_SCHEMAS,
  NODE_SLOTS,
  NODE_TYPES,
  type NodeType,
  type Post,
  postSchema,
  type RichBlock,
  richBlockSchema,
  type Span,
  spanSchema,
} from "./contract.gen";

/** The icon names of the schema's icon enum. */
export const ICON_NAMES = NODE_ICON_NAME_VALUES;
export type IconName = (typeof ICON_NAMES)[number];

export type NodeOf<K extends NodeType> = z.infer<(typeof NODE_SCHEMAS)[K]>;
export type AnyNode = { [K in NodeType]: NodeOf<K> }[NodeType];
