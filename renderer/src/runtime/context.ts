// React contexts of the runtime. Node components never read them directly: runtime/hooks does.
import { type ComponentType, createContext } from "react";
import type { NodeOf, NodeType } from "../schema/node";
import type { Runtime } from "./runtime";

/** What every node component receives: its parsed node and its JSON Pointer in the envelope. */
export interface NodeProps<K extends NodeType> {
  node: NodeOf<K>;
  pointer: string;
}

/** The allowlist of renderable node types. */
export type Registry = { [K in NodeType]: ComponentType<NodeProps<K>> };

export const EngineContext = createContext<Runtime | null>(null);
export const RegistryContext = createContext<Registry | null>(null);
/** The id of the form the current subtree sits in. */
export const FormContext = createContext<string | undefined>(undefined);

/** The overlay the current subtree is rendered in, and whether it is the topmost one. */
export interface OverlayScope {
  id: string;
  top: boolean;
}
export const OverlayContext = createContext<OverlayScope | null>(null);
