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
	b.WriteString("}\n")
	return gofmt([]byte(b.String()))
}
