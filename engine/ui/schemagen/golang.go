package schemagen

import (
	"fmt"
	"strconv"
	"strings"
)

func (g *gen) golang() ([]byte, error) {
	var b strings.Builder
	b.WriteString("// " + header + "\n\npackage ui\n\n")
	for _, name := range g.defs.keys {
		disp := g.dispatch[name]
		if disp == nil {
			continue
		}
		list := pascal(name) + pascal(disp.prop) + "s"
		fmt.Fprintf(&b, "// %s lists the values of $defs.%s.properties.%s, in schema order.\nvar %s = []string{", list, name, disp.prop, list)
		for _, v := range disp.values {
			b.WriteString(strconv.Quote(v) + ", ")
		}
		b.WriteString("}\n\n")
		fmt.Fprintf(&b, "// The values of %s.\nconst (\n", list)
		for _, v := range disp.values {
			fmt.Fprintf(&b, "\t%s%s%s = %s\n", pascal(name), pascal(disp.prop), pascal(v), strconv.Quote(v))
		}
		b.WriteString(")\n\n")
	}
	b.WriteString("// EnumValues lists every enum among a definition's properties, keyed by\n// \"definition.property\", in schema order.\nvar EnumValues = map[string][]string{\n")
	for _, e := range g.enums {
		fmt.Fprintf(&b, "\t%s: {", strconv.Quote(e.def+"."+e.prop))
		for _, v := range e.values {
			b.WriteString(strconv.Quote(v) + ", ")
		}
		b.WriteString("},\n")
	}
	b.WriteString("}\n\n")
	if err := g.goSlots(&b); err != nil {
		return nil, err
	}
	return gofmt([]byte(b.String()))
}

// goSlots writes Node.eachChild, which Walk uses: the renderer's NODE_SLOTS
// as Go. A slot's property names its field in the Node struct (and in the
// struct of a list's elements) by the Go convention, children → Children; a
// field named otherwise fails to compile rather than being skipped.
func (g *gen) goSlots(b *strings.Builder) error {
	slots, err := g.nodeSlots()
	if err != nil {
		return err
	}
	// One case per distinct list of slots, in schema order.
	var bodies []string
	types := map[string][]string{}
	for _, s := range slots {
		var body strings.Builder
		for _, path := range s.paths {
			if err := goSlot(&body, "n", strings.Split(path, "."), "\t\t"); err != nil {
				return fmt.Errorf("$defs.%s_%s: %w", nodeDef, s.nodeType, err)
			}
		}
		key := body.String()
		if _, seen := types[key]; !seen {
			bodies = append(bodies, key)
		}
		types[key] = append(types[key], pascal(nodeDef)+pascal(g.dispatch[nodeDef].prop)+pascal(s.nodeType))
	}
	b.WriteString("// eachChild calls fn on every node n holds in the child slots of its type, in\n")
	b.WriteString("// schema order (the renderer's NODE_SLOTS), nil ones included.\n")
	b.WriteString("func (n *Node) eachChild(fn func(*Node)) {\n\tswitch n.Type {\n")
	for _, body := range bodies {
		fmt.Fprintf(b, "\tcase %s:\n%s", wrap(types[body], "\t\t", 100), body)
	}
	b.WriteString("\t}\n}\n")
	return nil
}

// goSlot writes the Go that passes the nodes at one slot path to fn; on is
// the expression holding the path's first property.
func goSlot(b *strings.Builder, on string, path []string, indent string) error {
	name, list := strings.CutSuffix(path[0], "[]")
	field := on + "." + pascal(name)
	switch {
	case len(path) == 1 && !list:
		fmt.Fprintf(b, "%sfn(%s)\n", indent, field)
	case len(path) == 1:
		fmt.Fprintf(b, "%sfor _, child := range %s {\n%s\tfn(child)\n%s}\n", indent, field, indent, indent)
	case list:
		element := strings.TrimSuffix(camel(name), "s")
		if element == camel(name) {
			element += "Element"
		}
		fmt.Fprintf(b, "%sfor _, %s := range %s {\n", indent, element, field)
		if err := goSlot(b, element, path[1:], indent+"\t"); err != nil {
			return err
		}
		fmt.Fprintf(b, "%s}\n", indent)
	default:
		// An object between a node and its slot would be a pointer that may be
		// nil; no node has one yet.
		return fmt.Errorf("slot %q: a slot inside an object property is not supported by schemagen", strings.Join(path, "."))
	}
	return nil
}

// wrap joins names with ", ", breaking the line before one that would pass
// width columns; continued lines start with indent.
func wrap(names []string, indent string, width int) string {
	var b strings.Builder
	line := 0
	for i, name := range names {
		if i > 0 {
			b.WriteString(",")
			if line+len(name)+2 > width {
				b.WriteString("\n" + indent)
				line = 8 * len(indent)
			} else {
				b.WriteString(" ")
				line++
			}
		}
		b.WriteString(name)
		line += len(name) + 1
	}
	return b.String()
}
