package apiserver_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/schema"
	"github.com/kapi-dev/kapi/status"
)

// thingV1Doc and thingV2Doc are the schemas of a run-time kind's two
// versions: v2 renames spec.size to spec.bigness, requires it, makes it
// immutable and refuses "XXL" (CEL rules), bounds spec.replicas at 5
// (v1: 100) and status.ready at 3, and defaults spec.replicas to 2.
const (
	thingV1Doc = `
type: object
properties:
  spec:
    type: object
    properties:
      size: {type: string}
      replicas: {type: integer, maximum: 100}
  status:
    type: object
    properties:
      ready: {type: integer}
`
	thingV2Doc = `
type: object
properties:
  spec:
    type: object
    required: [bigness]
    properties:
      bigness:
        type: string
        x-kubernetes-validations:
        - {rule: "self == oldSelf", message: bigness is immutable}
        - {rule: "self != 'XXL'", message: XXL is too big}
      replicas: {type: integer, maximum: 5, default: 2}
  status:
    type: object
    properties:
      ready: {type: integer, maximum: 3}
`
)

// fieldRules stands for a rule engine that knows two rules on the
// fields of spec: "self == oldSelf" and "self != 'VALUE'".
type fieldRules struct{ rules []fieldRule }

type fieldRule struct{ field, rule, message string }

func (fieldRules) Compile(s *schema.Schema, _ status.Path) (schema.RuleValidator, error) {
	var fr fieldRules
	for name, p := range s.Properties["spec"].Properties {
		for _, r := range p.XValidations {
			fr.rules = append(fr.rules, fieldRule{field: name, rule: r.Rule, message: r.Message})
		}
	}
	return fr, nil
}

func (fr fieldRules) Validate(_ context.Context, obj, old map[string]any) (status.FieldErrors, []string) {
	spec, _ := obj["spec"].(map[string]any)
	var oldSpec map[string]any
	if old != nil {
		oldSpec, _ = old["spec"].(map[string]any)
	}
	var errs status.FieldErrors
	for _, r := range fr.rules {
		v, ok := spec[r.field]
		if !ok {
			continue
		}
		broken := false
		switch {
		case r.rule == "self == oldSelf":
			ov, had := oldSpec[r.field]
			broken = oldSpec != nil && had && ov != v
		case strings.HasPrefix(r.rule, "self != '"):
			broken = v == strings.TrimSuffix(strings.TrimPrefix(r.rule, "self != '"), "'")
		}
		if broken {
			errs = append(errs, status.InvalidValue(status.NewPath("spec", r.field), v, r.message))
		}
	}
	return errs, nil
}

// thingVersionsKind is a run-time kind in v1 (stored) and v2, whose schemas
// differ, converted by a function renaming spec.size to spec.bigness.
func thingVersionsKind(t *testing.T) apiserver.Kind {
	t.Helper()
	schemas := map[string]*schema.Schema{}
	for v, doc := range map[string]string{"v1": thingV1Doc, "v2": thingV2Doc} {
		s, err := schema.FromOpenAPI([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		schemas[v] = s
	}
	rename := func(obj *meta.Unstructured, to string) error {
		from, into := "bigness", "size"
		if to == "dyn.example.com/v2" {
			from, into = into, from
		}
		if spec, ok := obj.Content["spec"].(map[string]any); ok {
			if v, ok := spec[from]; ok {
				spec[into] = v
				delete(spec, from)
			}
		}
		obj.APIVersion = to
		return nil
	}
	return apiserver.Kind{Group: "dyn.example.com", Kind: "Thing", Resource: "things", Namespaced: true,
		Subresources: apiserver.Subresources{Status: true},
		New:          func() meta.Object { return &meta.Unstructured{} }, Convert: rename,
		Versions: []apiserver.KindVersion{
			{Name: "v1", Storage: true, Schema: schemas["v1"]},
			{Name: "v2", Schema: schemas["v2"]},
		}}
}

// TestVersionsRuntimeKindInRequestVersion writes a run-time kind through
// each of its versions, with every verb: each write is defaulted and
// validated, CEL rules included (oldSelf in the version of the request),
// with its version's schema, and a 422 names that version's fields.
func TestVersionsRuntimeKindInRequestVersion(t *testing.T) {
	srv := apiserver.New(apiserver.Options{RuleEngine: fieldRules{}})
	if err := srv.Register(thingVersionsKind(t)).Err(); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(func() { ts.Close(); srv.Close() })
	const (
		json1   = "application/json"
		merge   = "application/merge-patch+json"
		applyCT = "application/apply-patch+yaml"
	)
	obj := func(v, name, spec string) string {
		return `{"apiVersion":"dyn.example.com/` + v + `","kind":"Thing","metadata":{"name":"` + name + `"},"spec":` + spec + `}`
	}
	for _, tc := range []versionWrite{
		{"create through v2 breaking its rule", "POST", "v2", json1, obj("v2", "x", `{"bigness":"XXL"}`), 422, []string{"spec.bigness"}},
		{"create through v1 with what v2's rule refuses", "POST", "v1", json1, obj("v1", "big", `{"size":"XXL"}`), 201, nil},
		{"create through v2 without its required field", "POST", "v2", json1, obj("v2", "x", `{}`), 422, []string{"<nil>", "spec.bigness"}},
		{"create through v1 without it", "POST", "v1", json1, obj("v1", "none", `{}`), 201, nil},
		{"create through v2 over its bound", "POST", "v2", json1, obj("v2", "x", `{"bigness":"L","replicas":6}`), 422, []string{"spec.replicas"}},
		{"create through v2, defaulted", "POST", "v2", json1, obj("v2", "a", `{"bigness":"L"}`), 201, nil},
		{"create through v1, not defaulted", "POST", "v1", json1, obj("v1", "b", `{"size":"L"}`), 201, nil},
		{"update through v2 breaking a transition rule", "PUT", "v2/a", json1, obj("v2", "a", `{"bigness":"M"}`), 422, []string{"spec.bigness"}},
		{"update through v2", "PUT", "v2/a", json1, obj("v2", "a", `{"bigness":"L","replicas":4}`), 200, nil},
		{"merge patch through v2 over its bound", "PATCH", "v2/a", merge, `{"spec":{"replicas":9}}`, 422, []string{"spec.replicas"}},
		{"merge patch through v2 breaking a transition rule", "PATCH", "v2/a", merge, `{"spec":{"bigness":"S"}}`, 422, []string{"spec.bigness"}},
		{"apply through v2 breaking a transition rule", "PATCH", "v2/a?fieldManager=m&force=true", applyCT, obj("v2", "a", `{"bigness":"S"}`), 422, []string{"spec.bigness"}},
		{"apply through v2 over its bound", "PATCH", "v2/a?fieldManager=m&force=true", applyCT, obj("v2", "a", `{"bigness":"L","replicas":7}`), 422, []string{"spec.replicas"}},
		{"status through v2 over its bound", "PATCH", "v2/a/status", merge, `{"status":{"ready":4}}`, 422, []string{"status.ready"}},
		{"status through v1", "PATCH", "v1/a/status", merge, `{"status":{"ready":4}}`, 200, nil},
		{"merge patch through v1, which has neither rule nor bound", "PATCH", "v1/a", merge, `{"spec":{"size":"S","replicas":9}}`, 200, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := func(p string) string {
				v, rest, _ := strings.Cut(p, "/")
				if rest != "" {
					rest = "/" + rest
				}
				return "/apis/dyn.example.com/" + v + "/namespaces/default/things" + rest
			}
			tc.check(t, url, func(m, p, c, b string) response { return do(t, ts, m, p, c, b) })
		})
	}
	// Defaults are the version's: a through v2 has replicas 2 (then 4,
	// then 9 through v1), b through v1 none.
	for name, want := range map[string]string{"b": `"spec":{"size":"L"}`, "none": `"spec":{}`} {
		r := do(t, ts, "GET", "/apis/dyn.example.com/v1/namespaces/default/things/"+name, "", "")
		if !strings.Contains(string(r.body), want) {
			t.Errorf("%s: %s, want %s", name, r.body, want)
		}
	}
	r := do(t, ts, "POST", "/apis/dyn.example.com/v2/namespaces/default/things", json1, obj("v2", "d", `{"bigness":"L"}`))
	if !strings.Contains(string(r.body), `"replicas":2`) {
		t.Errorf("created through v2: %s, want v2's default replicas 2", r.body)
	}
	if r.code != http.StatusCreated {
		t.Errorf("create d: %d", r.code)
	}
}
