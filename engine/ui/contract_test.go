package ui_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"glimpse/engine/ui"
	"glimpse/engine/ui/schemagen"
)

// The renderer's zod schemas and the Go lists are generated from schema.json;
// CI runs this test, so a schema change without `make generate` fails it.
func TestGeneratedContractIsCurrent(t *testing.T) {
	t.Parallel()
	files, err := schemagen.Generate(ui.SchemaJSON)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		committed, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(f.Path)))
		if err != nil {
			t.Fatalf("%s: %v; run make generate", f.Path, err)
		}
		if !bytes.Equal(committed, f.Content) {
			t.Errorf("%s is stale: run make generate", f.Path)
		}
	}
}

func TestGeneratedListsMatchSchema(t *testing.T) {
	t.Parallel()
	var schema struct {
		Defs map[string]struct {
			Properties map[string]struct {
				Enum []string `json:"enum"`
			} `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(ui.SchemaJSON, &schema); err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string][]string{"node.type": ui.NodeTypes, "action.type": ui.ActionTypes, "rule.kind": ui.RuleKinds} {
		def, prop, _ := strings.Cut(name, ".")
		if want := schema.Defs[def].Properties[prop].Enum; !slices.Equal(got, want) {
			t.Errorf("%s: generated %v, schema %v", name, got, want)
		}
	}
	if got := ui.EnumValues["node_icon.name"]; !slices.Equal(got, schema.Defs["node_icon"].Properties["name"].Enum) {
		t.Errorf("node_icon.name: generated %v", got)
	}
}

// jsonNames lists the JSON names of a struct's fields.
func jsonNames(v any) []string {
	var out []string
	rt := reflect.TypeOf(v)
	for i := range rt.NumField() {
		name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}

// Every property a node or action definition allows has a field in the Go
// struct that composes it: a property added to schema.json alone fails here.
func TestGoStructsCoverSchemaProperties(t *testing.T) {
	t.Parallel()
	var schema struct {
		Defs map[string]struct {
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(ui.SchemaJSON, &schema); err != nil {
		t.Fatal(err)
	}
	check := func(kind string, names []string, fields []string) {
		for _, n := range names {
			def, ok := schema.Defs[kind+"_"+n]
			if !ok {
				t.Errorf("schema.json has no $defs.%s_%s", kind, n)
				continue
			}
			for p := range def.Properties {
				if !slices.Contains(fields, p) {
					t.Errorf("%s %s: property %q has no field in the Go struct", kind, n, p)
				}
			}
		}
	}
	check("node", ui.NodeTypes, jsonNames(ui.Node{}))
	check("action", ui.ActionTypes, jsonNames(ui.Action{}))
}

// Every icon the schema names has its path data in icons.json, and nothing
// else is there: the prerenderer draws from it and the renderer imports it.
func TestIconPathsCoverIconNames(t *testing.T) {
	t.Parallel()
	names := ui.EnumValues["node_icon.name"]
	if len(names) == 0 {
		t.Fatal("schema.json has no icon names")
	}
	for _, name := range names {
		if ui.IconPaths[name] == "" {
			t.Errorf("icon %q has no path data in engine/ui/icons.json", name)
		}
	}
	for name := range ui.IconPaths {
		if !slices.Contains(names, name) {
			t.Errorf("engine/ui/icons.json: %q is not an icon name of schema.json", name)
		}
	}
}
