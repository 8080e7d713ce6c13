package app_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestShippedBinaryHasNoFerretDB checks that the glimpse binary (the module's
// root package) depends on no package of github.com/FerretDB/: FerretDB is a
// test tool (engine/store/storetest/cmd/testdb) and must not ship, with its
// end-of-life code and its size. A failure names the chain of imports from
// glimpse to each FerretDB package the binary pulls in.
func TestShippedBinaryHasNoFerretDB(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "glimpse")
	cmd.Dir = filepath.Join("..", "..") // the module root, from engine/app
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps glimpse: %v", err)
	}
	imports := map[string][]string{}
	var ferret []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		imports[f[0]] = f[1:]
		if strings.HasPrefix(f[0], "github.com/FerretDB/") {
			ferret = append(ferret, f[0])
		}
	}
	if len(ferret) == 0 {
		return
	}
	// The packages of ours (and others') that import FerretDB directly, each
	// with one chain from glimpse: what to change.
	reported := 0
	for pkg, imps := range imports {
		if strings.HasPrefix(pkg, "github.com/FerretDB/") {
			continue
		}
		for _, imp := range imps {
			if strings.HasPrefix(imp, "github.com/FerretDB/") {
				t.Errorf("the shipped binary imports %s: %s", imp, strings.Join(importChain(imports, "glimpse", pkg), " → "))
				reported++
				break
			}
		}
	}
	t.Errorf("the shipped binary depends on %d FerretDB packages (%d importers outside FerretDB above)", len(ferret), reported)
}

// importChain returns a shortest chain of imports from root to target in
// imports (package → its direct imports), both ends included.
func importChain(imports map[string][]string, root, target string) []string {
	prev := map[string]string{root: ""}
	queue := []string{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if p == target {
			var chain []string
			for ; p != ""; p = prev[p] {
				chain = append([]string{p}, chain...)
			}
			return chain
		}
		for _, imp := range imports[p] {
			if _, seen := prev[imp]; !seen {
				prev[imp] = p
				queue = append(queue, imp)
			}
		}
	}
	return []string{root, "…", target}
}
