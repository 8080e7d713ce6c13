package schemagen

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Keywords that only describe, never constrain.
var annotations = map[string]bool{"description": true, "title": true, "$comment": true}

func (g *gen) typescript() ([]byte, error) {
	var b strings.Builder
	b.WriteString("// " + header + "\n")
	b.WriteString("//\n// Child-node slots (a $ref to \"node\") are kept raw and parsed node by node when they render;\n")
	b.WriteString("// the envelope and action_result keep their screen, overlays and effects raw for the same reason\n")
	b.WriteString("// (see renderer/src/schema/parse.ts). Objects strip unknown keys rather than fail, so an older\n")
	b.WriteString("// renderer tolerates a newer server; the golden fixtures test flags every stripped key.\n")
	b.WriteString("// Each schema is a z.lazy, built on its first parse, so loading the module builds none of them.\n")
	b.WriteString("import * as z from \"zod/mini\";\n\n")
	b.WriteString("/** A child node, kept raw: it is parsed on its own when rendered. */\nconst rawNode = z.record(z.string(), z.unknown());\n\n")
	for _, e := range g.enums {
		fmt.Fprintf(&b, "export const %s = [%s] as const;\n", e.tsName, jsList(e.values))
	}
	b.WriteString("\n")

	// Written-out types for the definitions that refer to themselves.
	for _, name := range g.order {
		if !g.cyclic[name] {
			continue
		}
		t, err := g.defType(name)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, "export type %s = %s;\n", pascal(name), t)
	}
	b.WriteString("\n")

	for _, name := range g.order {
		if name == nodeDef {
			continue
		}
		expr, err := g.defZod(name)
		if err != nil {
			return nil, err
		}
		// Every definition is built on its first parse, not when the module is evaluated: building
		// all of them up front was about 80 ms of the first page's main thread on a throttled phone
		// (issue #12), and a screen uses a handful of the node types. z.lazy memoises what it builds.
		if g.lazy[name] {
			fmt.Fprintf(&b, "export const %s: z.ZodMiniType<%s> = z.lazy(() => %s);\n", schemaName(name), pascal(name), expr)
		} else {
			fmt.Fprintf(&b, "export const %s = z.lazy(() => %s);\n", schemaName(name), expr)
			if !g.cyclic[name] {
				fmt.Fprintf(&b, "export type %s = z.infer<typeof %s>;\n", pascal(name), schemaName(name))
			}
		}
		b.WriteString("\n")
	}

	// The node dispatcher: one schema per node type, and each type's child slots.
	disp := g.dispatch[nodeDef]
	members, err := g.members(nodeDef)
	if err != nil {
		return nil, err
	}
	typeList := snake(nodeDef) + "_" + snake(disp.prop) + "S"
	fmt.Fprintf(&b, "export type %s%s = (typeof %s)[number];\n\n", pascal(nodeDef), pascal(disp.prop), typeList)
	fmt.Fprintf(&b, "/** One zod object per node %s, keyed by %s. */\nexport const %s_SCHEMAS = {\n", disp.prop, disp.prop, snake(nodeDef))
	for _, m := range members {
		if m.ref == "" {
			return nil, fmt.Errorf("$defs.%s: case %q must be a bare $ref to its own definition", nodeDef, m.value)
		}
		fmt.Fprintf(&b, "  %s: %s,\n", m.value, schemaName(m.ref))
	}
	fmt.Fprintf(&b, "} satisfies { [K in %s%s]: z.ZodMiniType<{ %s: K }> };\n\n", pascal(nodeDef), pascal(disp.prop), disp.prop)
	b.WriteString("/**\n * The properties of each node that hold child nodes, in schema order: `name` holds one node,\n")
	b.WriteString(" * `name[]` a list, and `a[].b[]` a list inside each element of a list.\n */\n")
	fmt.Fprintf(&b, "export const %s_SLOTS = {\n", snake(nodeDef))
	slots, err := g.nodeSlots()
	if err != nil {
		return nil, err
	}
	for _, s := range slots {
		fmt.Fprintf(&b, "  %s: [%s],\n", s.nodeType, jsList(s.paths))
	}
	fmt.Fprintf(&b, "} as const satisfies { [K in %s%s]: readonly string[] };\n", pascal(nodeDef), pascal(disp.prop))
	return []byte(b.String()), nil
}

func jsList(values []string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = jsString(v)
	}
	return strings.Join(q, ", ")
}

func isNodeRef(s *object) bool {
	r, ok := refName(s)
	return ok && r == nodeDef
}

func (g *gen) slotPaths(s *object, prefix string, out *[]string) {
	props := s.obj("properties")
	if props == nil {
		return
	}
	for _, p := range props.keys {
		ps := props.obj(p)
		switch {
		case isNodeRef(ps):
			*out = append(*out, prefix+p)
		case ps.obj("items") != nil && isNodeRef(ps.obj("items")):
			*out = append(*out, prefix+p+"[]")
		case ps.obj("items") != nil:
			g.slotPaths(ps.obj("items"), prefix+p+"[].", out)
		default:
			g.slotPaths(ps, prefix+p+".", out)
		}
	}
}

func (g *gen) defZod(name string) (string, error) {
	if g.dispatch[name] != nil {
		members, err := g.members(name)
		if err != nil {
			return "", err
		}
		parts := make([]string, len(members))
		for i, m := range members {
			if m.ref != "" {
				parts[i] = schemaName(m.ref)
				continue
			}
			z, err := g.zod(m.schema, name, "")
			if err != nil {
				return "", err
			}
			parts[i] = z
		}
		return fmt.Sprintf("z.discriminatedUnion(%s, [\n  %s,\n])", jsString(g.dispatch[name].prop), strings.Join(parts, ",\n  ")), nil
	}
	return g.zod(g.def(name), name, "")
}

func (g *gen) defType(name string) (string, error) {
	if g.dispatch[name] != nil {
		members, err := g.members(name)
		if err != nil {
			return "", err
		}
		parts := make([]string, len(members))
		for i, m := range members {
			if m.ref != "" {
				parts[i] = pascal(m.ref)
				continue
			}
			t, err := g.ts(m.schema, name)
			if err != nil {
				return "", err
			}
			parts[i] = t
		}
		return "\n  | " + strings.Join(parts, "\n  | "), nil
	}
	return g.ts(g.def(name), name)
}

func checkKeys(s *object, from string, allowed ...string) error {
	for _, k := range s.keys {
		if !annotations[k] && !slices.Contains(allowed, k) {
			return fmt.Errorf("$defs.%s: keyword %q is not supported by schemagen (add it to engine/ui/schemagen)", from, k)
		}
	}
	return nil
}

func num(v any) (string, bool) {
	n, ok := v.(json.Number)
	return string(n), ok
}

// types lists a schema's "type" as a slice.
func types(s *object) []string {
	v, _ := s.get("type")
	switch t := v.(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, e := range t {
			if str, ok := e.(string); ok {
				out = append(out, str)
			}
		}
		return out
	}
	return nil
}

func withChecks(expr string, checks []string) string {
	if len(checks) == 0 {
		return expr
	}
	return expr + ".check(" + strings.Join(checks, ", ") + ")"
}

// zod returns the zod/mini expression for schema s, found in definition
// from; enumName names the exported list when s is a top-level property.
func (g *gen) zod(v any, from, _ string) (string, error) {
	if bv, ok := v.(bool); ok && bv {
		return "z.unknown()", nil
	}
	s, ok := v.(*object)
	if !ok {
		return "", fmt.Errorf("$defs.%s: unsupported schema %v", from, v)
	}
	if len(s.keys) == 0 {
		return "z.unknown()", nil
	}
	if r, ok := refName(s); ok {
		if err := checkKeys(s, from, "$ref"); err != nil {
			return "", err
		}
		switch g.rawRef(from, r) {
		case "slot":
			return "z.unknown()", nil
		case "node":
			return "rawNode", nil
		}
		return schemaName(r), nil
	}
	if c, ok := s.get("const"); ok {
		if err := checkKeys(s, from, "const", "type"); err != nil {
			return "", err
		}
		raw, _ := json.Marshal(c)
		return "z.literal(" + string(raw) + ")", nil
	}
	if vals := s.strings("enum"); vals != nil {
		if err := checkKeys(s, from, "enum", "type"); err != nil {
			return "", err
		}
		if name := g.enumNames[s]; name != "" {
			return "z.enum(" + name + ")", nil
		}
		return "z.enum([" + jsList(vals) + "])", nil
	}
	if alts := s.list("oneOf"); alts != nil {
		if err := checkKeys(s, from, "oneOf"); err != nil {
			return "", err
		}
		parts := make([]string, len(alts))
		for i, a := range alts {
			z, err := g.zod(a, from, "")
			if err != nil {
				return "", err
			}
			parts[i] = z
		}
		return "z.union([\n  " + strings.Join(parts, ",\n  ") + ",\n])", nil
	}
	ts := types(s)
	if len(ts) == 0 {
		return "", fmt.Errorf("$defs.%s: a schema without type, $ref, const, enum or oneOf", from)
	}
	if len(ts) > 1 {
		var parts []string
		nullable := false
		for _, t := range ts {
			if t == "null" {
				nullable = true
				continue
			}
			one := &object{keys: []string{"type"}, vals: map[string]any{"type": t}}
			z, err := g.zod(one, from, "")
			if err != nil {
				return "", err
			}
			parts = append(parts, z)
		}
		if err := checkKeys(s, from, "type"); err != nil {
			return "", err
		}
		expr := parts[0]
		if len(parts) > 1 {
			expr = "z.union([" + strings.Join(parts, ", ") + "])"
		}
		if nullable {
			if len(parts) == 1 && len(ts) == 2 {
				return "z.nullable(" + expr + ")", nil
			}
			return "z.union([" + strings.Join(append(parts, "z.null()"), ", ") + "])", nil
		}
		return expr, nil
	}
	var checks []string
	switch ts[0] {
	case "string":
		if err := checkKeys(s, from, "type", "minLength", "maxLength", "pattern", "format"); err != nil {
			return "", err
		}
		if f := s.str("format"); f == "date-time" {
			if len(s.keys) > 2 {
				return "", fmt.Errorf("$defs.%s: format date-time with other constraints is not supported", from)
			}
			return "z.iso.datetime({ offset: true })", nil
		} else if f != "" {
			return "", fmt.Errorf("$defs.%s: format %q is not supported", from, f)
		}
		if n, ok := num(s.vals["minLength"]); ok {
			checks = append(checks, "z.minLength("+n+")")
		}
		if n, ok := num(s.vals["maxLength"]); ok {
			checks = append(checks, "z.maxLength("+n+")")
		}
		if p := s.str("pattern"); p != "" {
			checks = append(checks, "z.regex(new RegExp("+jsString(p)+", \"u\"))")
		}
		return withChecks("z.string()", checks), nil
	case "integer", "number":
		if err := checkKeys(s, from, "type", "minimum", "maximum"); err != nil {
			return "", err
		}
		if n, ok := num(s.vals["minimum"]); ok {
			checks = append(checks, "z.minimum("+n+")")
		}
		if n, ok := num(s.vals["maximum"]); ok {
			checks = append(checks, "z.maximum("+n+")")
		}
		base := "z.number()"
		if ts[0] == "integer" {
			base = "z.int()"
		}
		return withChecks(base, checks), nil
	case "boolean":
		return "z.boolean()", checkKeys(s, from, "type")
	case "null":
		return "z.null()", checkKeys(s, from, "type")
	case "array":
		if err := checkKeys(s, from, "type", "items", "prefixItems", "minItems", "maxItems"); err != nil {
			return "", err
		}
		minN, hasMin := num(s.vals["minItems"])
		maxN, hasMax := num(s.vals["maxItems"])
		if prefix := s.list("prefixItems"); prefix != nil {
			if _, ok := s.get("items"); ok || !hasMin || !hasMax || minN != maxN || minN != fmt.Sprint(len(prefix)) {
				return "", fmt.Errorf("$defs.%s: prefixItems must fix the length (minItems = maxItems = its length)", from)
			}
			parts := make([]string, len(prefix))
			for i, p := range prefix {
				z, err := g.zod(p, from, "")
				if err != nil {
					return "", err
				}
				parts[i] = z
			}
			return "z.tuple([" + strings.Join(parts, ", ") + "])", nil
		}
		item := "z.unknown()"
		if it, ok := s.get("items"); ok {
			z, err := g.zod(it, from, "")
			if err != nil {
				return "", err
			}
			item = z
		}
		if hasMin && hasMax && minN == maxN && minN != "0" && len(minN) == 1 {
			n := int(minN[0] - '0')
			return "z.tuple([" + strings.TrimSuffix(strings.Repeat(item+", ", n), ", ") + "])", nil
		}
		if hasMin {
			checks = append(checks, "z.minLength("+minN+")")
		}
		if hasMax {
			checks = append(checks, "z.maxLength("+maxN+")")
		}
		return withChecks("z.array("+item+")", checks), nil
	case "object":
		if err := checkKeys(s, from, "type", "properties", "required", "unevaluatedProperties", "additionalProperties", "propertyNames"); err != nil {
			return "", err
		}
		if ap, ok := s.vals["additionalProperties"].(*object); ok {
			if s.obj("properties") != nil {
				return "", fmt.Errorf("$defs.%s: properties with additionalProperties is not supported", from)
			}
			key := "z.string()"
			if pn := s.obj("propertyNames"); pn != nil {
				pn = &object{keys: append([]string{"type"}, pn.keys...), vals: pn.vals}
				pn.vals["type"] = "string"
				z, err := g.zod(pn, from, "")
				if err != nil {
					return "", err
				}
				key = z
			}
			val, err := g.zod(ap, from, "")
			if err != nil {
				return "", err
			}
			return "z.record(" + key + ", " + val + ")", nil
		}
		props := s.obj("properties")
		if props == nil {
			return "z.record(z.string(), z.unknown())", nil
		}
		required := s.strings("required")
		var fields []string
		for _, p := range props.keys {
			z, err := g.zod(props.vals[p], from, "")
			if err != nil {
				return "", err
			}
			if !slices.Contains(required, p) {
				z = "z.optional(" + z + ")"
			}
			fields = append(fields, propKey(p)+": "+z)
		}
		return "z.object({ " + strings.Join(fields, ", ") + " })", nil
	}
	return "", fmt.Errorf("$defs.%s: type %q is not supported", from, ts[0])
}

func propKey(p string) string {
	for i, r := range p {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return jsString(p)
		}
	}
	return p
}

// ts returns the TypeScript type zod infers for schema s; only needed for
// the definitions that refer to themselves.
func (g *gen) ts(v any, from string) (string, error) {
	if bv, ok := v.(bool); ok && bv {
		return "unknown", nil
	}
	s, ok := v.(*object)
	if !ok || len(s.keys) == 0 {
		return "unknown", nil
	}
	if r, ok := refName(s); ok {
		switch g.rawRef(from, r) {
		case "slot":
			return "unknown", nil
		case "node":
			return "Record<string, unknown>", nil
		}
		return pascal(r), nil
	}
	if c, ok := s.get("const"); ok {
		raw, _ := json.Marshal(c)
		return string(raw), nil
	}
	if vals := s.strings("enum"); vals != nil {
		return strings.Join(strings.Split(jsList(vals), ", "), " | "), nil
	}
	if alts := s.list("oneOf"); alts != nil {
		parts := make([]string, len(alts))
		for i, a := range alts {
			t, err := g.ts(a, from)
			if err != nil {
				return "", err
			}
			parts[i] = t
		}
		return "\n  | " + strings.Join(parts, "\n  | "), nil
	}
	ts := types(s)
	if len(ts) > 1 {
		parts := make([]string, len(ts))
		for i, t := range ts {
			one := &object{keys: []string{"type"}, vals: map[string]any{"type": t}}
			p, err := g.ts(one, from)
			if err != nil {
				return "", err
			}
			parts[i] = p
		}
		return strings.Join(parts, " | "), nil
	}
	if len(ts) == 0 {
		return "", fmt.Errorf("$defs.%s: a schema without type", from)
	}
	switch ts[0] {
	case "string":
		return "string", nil
	case "integer", "number":
		return "number", nil
	case "boolean":
		return "boolean", nil
	case "null":
		return "null", nil
	case "array":
		if prefix := s.list("prefixItems"); prefix != nil {
			parts := make([]string, len(prefix))
			for i, p := range prefix {
				t, err := g.ts(p, from)
				if err != nil {
					return "", err
				}
				parts[i] = t
			}
			return "[" + strings.Join(parts, ", ") + "]", nil
		}
		item := "unknown"
		if it, ok := s.get("items"); ok {
			t, err := g.ts(it, from)
			if err != nil {
				return "", err
			}
			item = t
		}
		minN, hasMin := num(s.vals["minItems"])
		maxN, hasMax := num(s.vals["maxItems"])
		if hasMin && hasMax && minN == maxN && minN != "0" && len(minN) == 1 {
			n := int(minN[0] - '0')
			return "[" + strings.TrimSuffix(strings.Repeat(item+", ", n), ", ") + "]", nil
		}
		if strings.ContainsAny(item, "|") {
			item = "(" + item + ")"
		}
		return item + "[]", nil
	case "object":
		if ap, ok := s.vals["additionalProperties"].(*object); ok {
			t, err := g.ts(ap, from)
			if err != nil {
				return "", err
			}
			return "Record<string, " + t + ">", nil
		}
		props := s.obj("properties")
		if props == nil {
			return "Record<string, unknown>", nil
		}
		required := s.strings("required")
		var fields []string
		for _, p := range props.keys {
			t, err := g.ts(props.vals[p], from)
			if err != nil {
				return "", err
			}
			if slices.Contains(required, p) {
				fields = append(fields, propKey(p)+": "+t)
			} else {
				fields = append(fields, propKey(p)+"?: "+t+" | undefined")
			}
		}
		return "{ " + strings.Join(fields, "; ") + " }", nil
	}
	return "", fmt.Errorf("$defs.%s: type %q is not supported", from, ts[0])
}
