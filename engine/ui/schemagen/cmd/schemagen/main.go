// Command schemagen writes the files generated from engine/ui/schema.json.
// Run it from the repository root: make generate does.
package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"glimpse/engine/ui/schemagen"
)

func main() {
	schema, err := os.ReadFile(filepath.Join("engine", "ui", "schema.json"))
	if err != nil {
		fail(fmt.Errorf("run from the repository root: %w", err))
	}
	files, err := schemagen.Generate(schema)
	if err != nil {
		fail(err)
	}
	for _, f := range files {
		old, _ := os.ReadFile(f.Path)
		if bytes.Equal(old, f.Content) {
			continue
		}
		if err := os.WriteFile(f.Path, f.Content, 0o644); err != nil {
			fail(err)
		}
		fmt.Println("schemagen: wrote", f.Path)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "schemagen:", err)
	os.Exit(1)
}
