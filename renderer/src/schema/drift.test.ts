// The zod schemas and the node, action and rule lists are generated from engine/ui/schema.json
// (contract.gen.ts; a Go test fails when it is stale). What stays hand-written is checked here:
// the renderer must have a component for every node type, a handler for every action type and
// a check for every rule kind, and nothing else.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { HANDLERS } from "../runtime/actions";
import { RULES } from "../runtime/rules";
import { registry } from "../nodes/registry";
import { repoPath } from "../test/paths";
import { ACTION_TYPES } from "./action";
import { NODE_SCHEMAS, NODE_TYPES } from "./node";
import { RULE_KINDS } from "./rule";

interface JsonSchema {
  $defs: Record<string, { properties?: Record<string, { enum?: string[] }> }>;
}

const schema = JSON.parse(readFileSync(repoPath("engine", "ui", "schema.json"), "utf8")) as JsonSchema;

function enumOf(definition: string, property: string): string[] {
  const values = schema.$defs[definition]?.properties?.[property]?.enum;
  if (values === undefined) throw new Error(`schema.json has no $defs.${definition}.properties.${property}.enum`);
  return values;
}

const sorted = (values: Iterable<string>): string[] => [...values].sort();

describe("the renderer covers the generated contract", () => {
  it("has a component for every node type", () => {
    const expected = sorted(enumOf("node", "type"));
    expect(sorted(NODE_TYPES)).toEqual(expected);
    expect(sorted(Object.keys(NODE_SCHEMAS))).toEqual(expected);
    expect(sorted(Object.keys(registry))).toEqual(expected);
  });

  it("has a handler for every action type", () => {
    const expected = sorted(enumOf("action", "type"));
    expect(sorted(ACTION_TYPES)).toEqual(expected);
    expect(sorted(Object.keys(HANDLERS))).toEqual(expected);
  });

  it("has a check for every rule kind", () => {
    const expected = sorted(enumOf("rule", "kind"));
    expect(sorted(RULE_KINDS)).toEqual(expected);
    expect(sorted(Object.keys(RULES))).toEqual(expected);
  });
});
