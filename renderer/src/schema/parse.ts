// Per-node parsing: a node that is unknown or fails its schema renders its fallback (if valid)
// or nothing, and the failure is logged with the node's JSON Pointer (e.g. /screen/children/3).
import { type Action, actionSchema } from "./action";
import { type AnyNode, NODE_SCHEMAS, NODE_SLOTS, type NodeType } from "./node";
import { escapeToken } from "./token";

export { escapeToken };

type Log = (message: string) => void;

const logError: Log = (message) => console.error(message);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isNodeType(type: unknown): type is NodeType {
  return typeof type === "string" && Object.hasOwn(NODE_SCHEMAS, type);
}

/** The reason a raw node does not parse, or null when it parses. */
export function nodeProblem(raw: unknown): string | null {
  if (!isRecord(raw)) return "not an object";
  if (!isNodeType(raw.type)) return `unknown node type ${JSON.stringify(raw.type)}`;
  const result = NODE_SCHEMAS[raw.type].safeParse(raw);
  if (result.success) return null;
  return result.error.issues.map((issue) => `${issue.path.join(".") || "(node)"}: ${issue.message}`).join("; ");
}

/** Parses one node without its fallback; null when it is unknown or invalid. */
export function parseNodeStrict(raw: unknown): AnyNode | null {
  if (!isRecord(raw) || !isNodeType(raw.type)) return null;
  const result = NODE_SCHEMAS[raw.type].safeParse(raw);
  return result.success ? result.data : null;
}

const cache = new WeakMap<object, AnyNode | null>();
/** Raw nodes that did not parse (their fallback, if any, stood in). */
const failed = new WeakSet<object>();

/**
 * Parses one node, falling back to its `fallback` node when it is unknown or invalid.
 * Results are cached per raw object, so a failure is logged once however often it renders.
 */
export function parseNode(raw: unknown, pointer: string, log: Log = logError): AnyNode | null {
  if (isRecord(raw)) {
    const cached = cache.get(raw);
    if (cached !== undefined) return cached;
  }
  let node = parseNodeStrict(raw);
  if (node === null) {
    if (isRecord(raw)) failed.add(raw);
    log(`Glimpse: invalid node at ${pointer}: ${nodeProblem(raw) ?? "unknown problem"}`);
    if (isRecord(raw) && raw.fallback !== undefined) node = parseNode(raw.fallback, `${pointer}/fallback`, log);
  }
  if (isRecord(raw)) cache.set(raw, node);
  return node;
}

/**
 * Whether every node of a raw tree parses as it is, none standing in for by its fallback. Each is
 * parsed (cached, a failure logged) as its render would. For a screen drawn before the validator
 * arrived with every node as written: when all parse, drawing it again would change nothing.
 */
export function treeParses(raw: unknown, pointer: string, log: Log = logError): boolean {
  const node = parseNode(raw, pointer, log);
  if (node === null || !isRecord(raw) || failed.has(raw)) return false;
  return childSlots(node).every((slot) => treeParses(slot.raw, pointer + slot.suffix, log));
}

/** Parses one action; an invalid one is logged with its pointer and skipped. */
export function parseAction(raw: unknown, pointer: string, log: Log = logError): Action | null {
  const result = actionSchema.safeParse(raw);
  if (result.success) return result.data;
  log(`Glimpse: invalid action at ${pointer}: ${result.error.issues.map((i) => i.message).join("; ")}`);
  return null;
}

/** One child node held by a parsed node, with the pointer suffix of its slot. */
export interface ChildSlot {
  suffix: string;
  raw: unknown;
}

/** Adds the child nodes at `steps` (one slot path of NODE_SLOTS, split at ".") under `value`. */
function collect(value: unknown, steps: readonly string[], suffix: string, out: ChildSlot[]): void {
  const [step, ...rest] = steps;
  if (step === undefined) {
    if (value !== undefined) out.push({ suffix, raw: value });
    return;
  }
  if (!isRecord(value)) return;
  const many = step.endsWith("[]");
  const key = many ? step.slice(0, -2) : step;
  const at = `${suffix}/${escapeToken(key)}`;
  const child = value[key];
  if (!many) collect(child, rest, at, out);
  else if (Array.isArray(child)) child.forEach((item: unknown, index) => collect(item, rest, `${at}/${index}`, out));
}

/**
 * The child nodes a parsed node holds, in schema order (NODE_SLOTS, generated from schema.json).
 * The fallback is included only on request, last: it renders only when its node fails, but a
 * golden screen must keep it valid too.
 */
export function childSlots(node: AnyNode, includeFallback = false): ChildSlot[] {
  const slots: ChildSlot[] = [];
  const paths: readonly string[] = NODE_SLOTS[node.type];
  for (const path of paths) {
    if (path !== "fallback") collect(node, path.split("."), "", slots);
  }
  if (includeFallback) collect(node, ["fallback"], "", slots);
  return slots;
}
