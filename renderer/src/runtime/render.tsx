// Renders raw nodes: parse one node (falling back per node), check `visible`, look the type up
// in the registry. Children render the same way, each on its own.
import { type ComponentType, createElement, type ReactNode, useContext, useSyncExternalStore } from "react";
import { ErrorBoundary } from "./error-boundary";
import type { AnyNode, NodeType } from "../schema/node";
import { evaluate } from "./conditions";
import { EngineContext, type NodeProps, type Registry, RegistryContext } from "./context";
import { contractValidator } from "./validator";

const noSubscription = (): (() => void) => () => undefined;

/**
 * Before the contract's validator arrives (the page's first screen, runtime/validator.ts): a node
 * of a type the registry knows as the server wrote it, else its fallback. The screen is checked
 * when the validator arrives, and rendered again, parsed.
 */
function unchecked(raw: unknown, registry: Registry | null): AnyNode | null {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return null;
  const { type, fallback } = raw as { type?: unknown; fallback?: unknown };
  if (typeof type === "string" && registry !== null && Object.hasOwn(registry, type)) return raw as AnyNode;
  return fallback === undefined ? null : unchecked(fallback, registry);
}

/** One raw node at `pointer`: its component, its fallback, or nothing. */
export function NodeView({ raw, pointer }: { raw: unknown; pointer: string }): ReactNode {
  const registry = useContext(RegistryContext);
  const runtime = useContext(EngineContext);
  const contract = (runtime?.validator ?? contractValidator).current();
  const node = contract === null ? unchecked(raw, registry) : contract.parseNode(raw, pointer);
  const isVisible = (): boolean => evaluate(node?.visible, runtime?.store.get().state);
  // The same while React adopts the server's markup: the store already holds that screen.
  const visible = useSyncExternalStore(runtime?.store.subscribe ?? noSubscription, isVisible, isVisible);
  if (node === null || !visible || registry === null) return null;
  const component = registry[node.type] as ComponentType<NodeProps<NodeType>>;
  return createElement(component, { node, pointer });
}

/**
 * A list of raw nodes whose array sits at `pointer` (e.g. "/screen/children"). With `isolate`,
 * each child gets its own error boundary, so one failing subtree leaves the rest standing.
 */
export function NodeList({
  nodes,
  pointer,
  isolate = false,
}: {
  nodes: readonly unknown[] | undefined;
  pointer: string;
  isolate?: boolean;
}): ReactNode {
  return (nodes ?? []).map((raw, index) =>
    isolate ? (
      <ErrorBoundary key={index}>
        <NodeView raw={raw} pointer={`${pointer}/${index}`} />
      </ErrorBoundary>
    ) : (
      <NodeView key={index} raw={raw} pointer={`${pointer}/${index}`} />
    ),
  );
}
