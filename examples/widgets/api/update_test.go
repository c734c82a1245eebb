package api_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/cel"
	"github.com/kapi-dev/kapi/examples/widgets/api"
)

// TestUpdateNamesResourceVersion: an update of a Widget or a Gadget that
// names no resourceVersion is refused, with the Status kube-apiserver
// answers for the custom resources they mirror.
func TestUpdateNamesResourceVersion(t *testing.T) {
	rules, err := cel.New(cel.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := apiserver.New(apiserver.Options{RuleEngine: rules})
	if err := srv.Register(api.WidgetKind()).Register(api.GadgetKind()).Err(); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ts := httptest.NewServer(srv)
	defer ts.Close()
	for _, tc := range []struct {
		collection, body, want string
		paths                  []string // below the object's
	}{
		{"/apis/stable.example.com/v1/namespaces/default/widgets", `{"metadata":{"name":"u"},"spec":{"color":"red"}}`,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"widgets.stable.example.com \"u\" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update","reason":"Invalid","details":{"name":"u","group":"stable.example.com","kind":"widgets","causes":[{"reason":"FieldValueInvalid","message":"Invalid value: 0: must be specified for an update","field":"metadata.resourceVersion"}]},"code":422}`,
			[]string{"", "/status"}},
		{"/apis/stable.example.com/v1/gadgets", `{"metadata":{"name":"u"},"spec":{"level":1}}`,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"gadgets.stable.example.com \"u\" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update","reason":"Invalid","details":{"name":"u","group":"stable.example.com","kind":"gadgets","causes":[{"reason":"FieldValueInvalid","message":"Invalid value: 0: must be specified for an update","field":"metadata.resourceVersion"}]},"code":422}`,
			[]string{""}},
	} {
		if code, body := send(t, ts, "POST", tc.collection, tc.body); code != http.StatusCreated {
			t.Fatalf("create: %d %s", code, body)
		}
		for _, sub := range tc.paths {
			path := tc.collection + "/u" + sub
			code, body := send(t, ts, "PUT", path, tc.body)
			if code != http.StatusUnprocessableEntity || strings.TrimSpace(string(body)) != tc.want {
				t.Errorf("PUT %s: %d %s\nwant 422 %s", path, code, body, tc.want)
			}
		}
	}
}
