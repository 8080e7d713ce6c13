package ui

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// SchemaJSON is the screen contract, embedded so that the binary, its tests
// and the renderer's drift test all read the same file.
//
//go:embed schema.json
var SchemaJSON []byte

const schemaURL = "https://glimpse.app/schema/sdui-v1.json"

var compiled = sync.OnceValues(func() (map[string]*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(SchemaJSON))
	if err != nil {
		return nil, fmt.Errorf("parse schema.json: %w", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, fmt.Errorf("add schema: %w", err)
	}
	out := map[string]*jsonschema.Schema{}
	for _, def := range []string{"envelope", "action_result", "node", "action"} {
		s, err := c.Compile(schemaURL + "#/$defs/" + def)
		if err != nil {
			return nil, fmt.Errorf("compile schema %s: %w", def, err)
		}
		out[def] = s
	}
	return out, nil
})

// ValidateEnvelope checks an encoded envelope against the schema.
func ValidateEnvelope(body []byte) error { return validate("envelope", body) }

// ValidateResult checks an encoded action result against the schema.
func ValidateResult(body []byte) error { return validate("action_result", body) }

// ValidateNode checks a single node (and its subtree) against the schema.
func ValidateNode(n *Node) error {
	b, err := json.Marshal(n)
	if err != nil {
		return fmt.Errorf("encode node: %w", err)
	}
	return validate("node", b)
}

func validate(def string, body []byte) error {
	schemas, err := compiled()
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("decode %s: %w", def, err)
	}
	if err := schemas[def].Validate(inst); err != nil {
		return fmt.Errorf("%s does not match schema.json: %w", def, err)
	}
	return nil
}
