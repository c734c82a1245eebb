package kapi

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLayoutListsEveryPackage keeps the package documentation's layout in
// step with the tree: every top-level package is listed, and every listed
// name is a directory with Go code.
func TestLayoutListsEveryPackage(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, line := range strings.Split(f.Doc.Text(), "\n") {
		if strings.HasPrefix(line, "\t") && !strings.HasPrefix(line, "\t ") {
			listed[strings.Fields(line)[0]] = true
		}
	}
	if len(listed) == 0 {
		t.Fatal("the package documentation has no layout")
	}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || name == "internal" || name == "examples" || strings.HasPrefix(name, ".") {
			continue
		}
		if hasGo(t, name) && !listed[name] {
			t.Errorf("package %s is not in the layout of doc.go", name)
		}
	}
	for name := range listed {
		if !hasGo(t, name) {
			t.Errorf("doc.go lists %s, which is not a directory with Go code", name)
		}
	}
}

func hasGo(t *testing.T, dir string) bool {
	matches, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	return len(matches) > 0
}
