package model

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestModelIsPure holds the shape of the house (STYLE.md): the model
// imports only these standard packages and never reads the wall clock, so
// it cannot depend on files, randomness, goroutines or real time.
func TestModelIsPure(t *testing.T) {
	allowed := map[string]bool{"fmt": true, "math": true, "time": true}
	files, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		af, err := parser.ParseFile(fset, f, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range af.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if !allowed[path] {
				t.Errorf("%s imports %q; the model may import only %v", f, path, allowed)
			}
		}
		for _, banned := range []string{"time.Now", "time.Since", "time.Sleep", "time.After", "go func"} {
			if strings.Contains(string(src), banned) {
				t.Errorf("%s uses %s; the model takes time from its caller", f, banned)
			}
		}
	}
}
