// The node, action and rule lists must be identical in the JSON Schema (engine/ui/schema.json),
// the zod mirror, the action runner, the rule checks and the renderer's registry.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { HANDLERS } from "../engine/actions";
import { RULES } from "../engine/rules";
import { registry } from "../nodes/registry";
import { repoPath } from "../test/paths";
import { ACTION_TYPES } from "./action";
import { ICON_NAMES, NODE_SCHEMAS, NODE_TYPES } from "./node";
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

describe("drift between schema.json and the renderer", () => {
  it("has the same node types everywhere", () => {
    const expected = sorted(enumOf("node", "type"));
    expect(sorted(NODE_TYPES)).toEqual(expected);
    expect(sorted(Object.keys(NODE_SCHEMAS))).toEqual(expected);
    expect(sorted(Object.keys(registry))).toEqual(expected);
  });

  it("has the same action types everywhere", () => {
    const expected = sorted(enumOf("action", "type"));
    expect(sorted(ACTION_TYPES)).toEqual(expected);
    expect(sorted(Object.keys(HANDLERS))).toEqual(expected);
  });

  it("has the same rule kinds everywhere", () => {
    const expected = sorted(enumOf("rule", "kind"));
    expect(sorted(RULE_KINDS)).toEqual(expected);
    expect(sorted(Object.keys(RULES))).toEqual(expected);
  });

  it("has the same icon names", () => {
    expect(sorted(ICON_NAMES)).toEqual(sorted(enumOf("node_icon", "name")));
  });

  it("mirrors every node definition's properties", () => {
    for (const type of NODE_TYPES) {
      const properties = Object.keys(schema.$defs[`node_${type}`]?.properties ?? {});
      expect(sorted(Object.keys(NODE_SCHEMAS[type].def.shape)), type).toEqual(sorted(properties));
    }
  });
});
