package crd_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/controllers/crd"
)

// An update of a custom resource, or of a definition, must name the
// resourceVersion it replaces, as kube-apiserver requires: a PUT without
// one and a patch removing it are 422, with kube's message; a patch that
// leaves it out and a scale write take the stored one.
func TestUpdateNeedsResourceVersion(t *testing.T) {
	e := start(t)
	if err := crd.Create(ctx(t), e.srv, manifest(t, crontabCRD)); err != nil {
		t.Fatal(err)
	}
	if code, body := e.do(t, "POST", crontabs, "application/json",
		`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"a"},"spec":{"replicas":1}}`); code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, body)
	}
	definition := "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/crontabs.stable.example.com"
	d := e.definition(t, "crontabs.stable.example.com")
	d.ResourceVersion = ""
	unversioned, _ := json.Marshal(d)
	refused := func(what, name string) string {
		return `{"code":422,"reason":"Invalid","message":"` + what + ` \"` + name + `\" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update"}`
	}
	tests := []struct {
		name, method, path, ctype, body string
		code                            int
		want                            string // the Status, for a failure
	}{
		{"PUT without a resourceVersion", "PUT", crontabs + "/a", "application/json",
			`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"a"},"spec":{"replicas":2}}`,
			422, refused("crontabs.stable.example.com", "a")},
		{"PUT of /status without one", "PUT", crontabs + "/a/status", "application/json",
			`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"a"},"status":{"replicas":2}}`,
			422, refused("crontabs.stable.example.com", "a")},
		{"a patch removing it", "PATCH", crontabs + "/a", "application/merge-patch+json",
			`{"metadata":{"resourceVersion":null},"spec":{"replicas":2}}`, 422, refused("crontabs.stable.example.com", "a")},
		{"a patch leaving it out", "PATCH", crontabs + "/a", "application/merge-patch+json", `{"spec":{"replicas":2}}`, 200, ""},
		{"a scale write without one", "PUT", crontabs + "/a/scale", "application/json",
			`{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"a","namespace":"default"},"spec":{"replicas":3}}`, 200, ""},
		{"a definition's PUT without one", "PUT", definition, "application/json", string(unversioned),
			422, refused("customresourcedefinitions.apiextensions.k8s.io", "crontabs.stable.example.com")},
	}
	for _, tc := range tests {
		code, body := e.do(t, tc.method, tc.path, tc.ctype, tc.body)
		if code != tc.code {
			t.Errorf("%s: %d %s, want %d", tc.name, code, body, tc.code)
			continue
		}
		if tc.want == "" {
			continue
		}
		var st struct {
			Code    int    `json:"code"`
			Reason  string `json:"reason"`
			Message string `json:"message"`
		}
		_ = json.Unmarshal([]byte(body), &st)
		if got, _ := json.Marshal(st); string(got) != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
		if !strings.Contains(body, `"causes":[{"reason":"FieldValueInvalid","message":"Invalid value: 0: must be specified for an update","field":"metadata.resourceVersion"}]`) {
			t.Errorf("%s: causes: %s", tc.name, body)
		}
	}
}
