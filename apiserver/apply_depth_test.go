package apiserver_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestApplyNestingBound checks that the YAML parser's flow-depth bound
// applies to YAML apply bodies only: a JSON body is bounded by the JSON
// decoder's 10,000 levels, as Kubernetes bounds it, whatever the patch
// type's media type says.
func TestApplyNestingBound(t *testing.T) {
	ts := startWith(t, cogKind(t))
	const depth = 300
	nested := strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth)
	path := cogsPath + "/deep?fieldManager=m"
	r := do(t, ts.Server, "PATCH", path, "application/apply-patch+yaml", cog("deep", `{"teeth":12,"extra":`+nested+`}`))
	if r.code != http.StatusCreated {
		t.Fatalf("JSON apply nested %d deep: %d %s", depth, r.code, r.body)
	}
	// The same nesting in YAML flow style costs the YAML parser time
	// proportional to size times depth: refused.
	flow := "apiVersion: dyn.example.com/v1\nkind: Cog\nmetadata: {name: deep}\nspec: {teeth: 12, extra: " +
		strings.Repeat("{a: ", depth) + "1" + strings.Repeat("}", depth) + "}\n"
	r = do(t, ts.Server, "PATCH", path, "application/apply-patch+yaml", flow)
	if r.code != http.StatusBadRequest || !strings.Contains(string(r.body), "nested deeper than") {
		t.Fatalf("YAML apply nested %d deep: %d %s", depth, r.code, r.body)
	}
	// A duplicate field in a JSON body is still found under Strict.
	r = do(t, ts.Server, "PATCH", path+"&fieldValidation=Strict", "application/apply-patch+yaml",
		cog("deep", `{"teeth":12,"teeth":13,"extra":`+nested+`}`))
	if r.code != http.StatusBadRequest || !strings.Contains(string(r.body), "teeth") {
		t.Fatalf("JSON apply with a duplicate field: %d %s", r.code, r.body)
	}
}
