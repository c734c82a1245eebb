package cel_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/cel"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/schema"
	"github.com/kapi-dev/kapi/status"
)

// part is a Widget-sized kind for the write benchmark.
type part struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            partSpec `json:"spec,omitempty"`
}

type partSpec struct {
	Replicas int32      `json:"replicas" minimum:"0" maximum:"1000"`
	Color    string     `json:"color,omitempty" maxLength:"32"`
	Size     string     `json:"size,omitempty" maxLength:"16"`
	Tags     []string   `json:"tags,omitempty" listType:"set" maxItems:"16"`
	Ports    []partPort `json:"ports,omitempty" listType:"map" listMapKey:"name" maxItems:"16"`
}

type partPort struct {
	Name string `json:"name" maxLength:"15"`
	Port int32  `json:"port"`
}

// fiveRules are typical CRD rules: a cross-field check, a transition
// rule, a list comprehension, a string function and a set check.
var fiveRules = []schema.Rule{
	{Rule: "!has(self.color) || self.replicas >= 1", Message: "replicas may not drop below 1 while color is set"},
	{Rule: "!has(oldSelf.size) || self.size == oldSelf.size", Message: "size is immutable once set"},
	{Rule: "!has(self.ports) || self.ports.all(p, p.port > 0 && p.port < 65536)", Message: "ports are 1-65535"},
	{Rule: "!has(self.color) || self.color.lowerAscii() == self.color", Message: "color is lower case"},
	{Rule: "!has(self.tags) || self.tags.size() <= 8", Message: "at most 8 tags"},
}

func partServer(b *testing.B, rules []schema.Rule) http.Handler {
	s, err := schema.FromType(reflect.TypeFor[part]())
	if err != nil {
		b.Fatal(err)
	}
	s.Properties["spec"].XValidations = rules
	engine, err := cel.New(cel.Options{})
	if err != nil {
		b.Fatal(err)
	}
	srv := apiserver.New(apiserver.Options{RuleEngine: engine})
	srv.Register(apiserver.Kind{Group: "cel.example.com", Version: "v1", Kind: "Part", Resource: "parts",
		Namespaced: true, Schema: s, New: func() meta.Object { return &part{} }})
	if err := srv.Err(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(srv.Close)
	return srv
}

func serve(b *testing.B, h http.Handler, method, path string, body []byte, want int) {
	req := httptest.NewRequest(method, path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != want {
		b.Fatalf("%s %s: %d %s", method, path, rec.Code, rec.Body)
	}
}

// BenchmarkWriteRules updates one object again and again through the
// handler, with the kind's spec under five CEL rules and under none.
func BenchmarkWriteRules(b *testing.B) {
	const path = "/apis/cel.example.com/v1/namespaces/default/parts"
	for _, tc := range []struct {
		name  string
		rules []schema.Rule
	}{{"rules=0", nil}, {"rules=5", fiveRules}} {
		b.Run(tc.name, func(b *testing.B) {
			h := partServer(b, tc.rules)
			body := func(replicas int) []byte {
				return []byte(fmt.Sprintf(`{"apiVersion":"cel.example.com/v1","kind":"Part","metadata":{"name":"p","labels":{"app":"demo"}},
				"spec":{"replicas":%d,"color":"red","size":"large","tags":["a","b","c"],
				"ports":[{"name":"http","port":80},{"name":"https","port":443},{"name":"metrics","port":9090}]}}`, replicas))
			}
			serve(b, h, "POST", path, body(1), http.StatusCreated)
			bodies := [][]byte{body(2), body(3)}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				serve(b, h, "PUT", path+"/p", bodies[i%2], http.StatusOK)
			}
		})
	}
}

// BenchmarkValidateFiveRules evaluates the five rules alone on an update
// of a Part's spec, the work they add to a write.
func BenchmarkValidateFiveRules(b *testing.B) {
	s, err := schema.FromType(reflect.TypeFor[part]())
	if err != nil {
		b.Fatal(err)
	}
	s.Properties["spec"].XValidations = fiveRules
	engine, _ := cel.New(cel.Options{})
	rv, err := engine.Compile(s, status.NewPath("openAPIV3Schema"))
	if err != nil {
		b.Fatal(err)
	}
	obj := func(replicas int64) map[string]any {
		return map[string]any{"apiVersion": "cel.example.com/v1", "kind": "Part", "metadata": map[string]any{"name": "p"},
			"spec": map[string]any{"replicas": replicas, "color": "red", "size": "large", "tags": []any{"a", "b", "c"},
				"ports": []any{map[string]any{"name": "http", "port": int64(80)}, map[string]any{"name": "https", "port": int64(443)},
					map[string]any{"name": "metrics", "port": int64(9090)}}}}
	}
	newObj, oldObj := obj(2), obj(3)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if errs, _ := rv.Validate(ctx, newObj, oldObj); len(errs) > 0 {
			b.Fatal(errs)
		}
	}
}
