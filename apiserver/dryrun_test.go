package apiserver_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/auth"
	"github.com/kapi-dev/kapi/meta"
)

// A dry run fails where its real twin would: a taken name, a stale
// resourceVersion, a missing object.
func TestDryRunConflicts(t *testing.T) {
	ts := newTestServer(t)
	w := createWidget(t, ts, "taken", "")
	stale := `{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"taken","resourceVersion":"1"}}`
	cases := []struct {
		name, method, path, contentType, body string
		code                                  int
		reason                                meta.StatusReason
	}{
		{"create of a taken name", "POST", widgetsPath, "application/json",
			`{"metadata":{"name":"taken"}}`, http.StatusConflict, meta.StatusReasonAlreadyExists},
		{"update with a stale resourceVersion", "PUT", widgetsPath + "/taken", "application/json",
			stale, http.StatusConflict, meta.StatusReasonConflict},
		{"update of a missing object", "PUT", widgetsPath + "/missing", "application/json",
			strings.Replace(stale, `"taken","resourceVersion":"1"`, `"missing"`, 1), http.StatusNotFound, meta.StatusReasonNotFound},
		{"patch of a missing object", "PATCH", widgetsPath + "/missing", "application/merge-patch+json",
			`{"spec":{"color":"red"}}`, http.StatusNotFound, meta.StatusReasonNotFound},
		{"patch with a stale resourceVersion", "PATCH", widgetsPath + "/taken", "application/merge-patch+json",
			`{"metadata":{"resourceVersion":"1"}}`, http.StatusConflict, meta.StatusReasonConflict},
		{"delete of a missing object", "DELETE", widgetsPath + "/missing", "", "", http.StatusNotFound, meta.StatusReasonNotFound},
		{"delete with a stale precondition", "DELETE", widgetsPath + "/taken", "application/json",
			`{"preconditions":{"resourceVersion":"1"}}`, http.StatusConflict, meta.StatusReasonConflict},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := do(t, ts, tc.method, tc.path+"?dryRun=All", tc.contentType, tc.body)
			if r.code != tc.code {
				t.Fatalf("%d %s, want %d", r.code, r.body, tc.code)
			}
			if st := decodeStatus(t, r); st.Reason != tc.reason {
				t.Errorf("reason %q, want %q", st.Reason, tc.reason)
			}
		})
	}
	if got := decodeWidget(t, do(t, ts, "GET", widgetsPath+"/taken", "", "")); got.ResourceVersion != w.ResourceVersion {
		t.Errorf("a dry run changed the object: resourceVersion %s, was %s", got.ResourceVersion, w.ResourceVersion)
	}
	// A generated name that is free is still answered, and not stored.
	r := do(t, ts, "POST", widgetsPath+"?dryRun=All", "application/json", `{"metadata":{"generateName":"taken-"}}`)
	if r.code != http.StatusCreated || !strings.HasPrefix(decodeWidget(t, r).Name, "taken-") {
		t.Errorf("dry-run create with generateName: %d %s", r.code, r.body)
	}
}

// Admission learns who writes, under which manager and with which
// options, and sees a generated name only after mutating admission.
func TestAdmissionSeesUserManagerAndOptions(t *testing.T) {
	var got []apiserver.AdmissionRequest
	record := func(_ context.Context, a *apiserver.AdmissionRequest) error {
		got = append(got, *a)
		return nil
	}
	srv := apiserver.New(apiserver.Options{
		MutatingAdmission:   []apiserver.AdmissionFunc{record},
		ValidatingAdmission: []apiserver.AdmissionFunc{record},
	})
	srv.Register(widgetKind())
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	alice := &auth.User{Name: "alice", Groups: []string{"system:authenticated"}}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		srv.ServeHTTP(w, r.WithContext(auth.WithUser(r.Context(), alice)))
	}))
	t.Cleanup(ts.Close)

	r := do(t, ts, "POST", widgetsPath+"?fieldManager=tester&fieldValidation=Strict", "application/json",
		`{"metadata":{"generateName":"gen-"}}`)
	if r.code != http.StatusCreated {
		t.Fatalf("create: %d %s", r.code, r.body)
	}
	name := decodeWidget(t, r).Name
	if r := do(t, ts, "DELETE", widgetsPath+"/"+name+"?dryRun=All", "", ""); r.code != http.StatusOK {
		t.Fatalf("delete: %d %s", r.code, r.body)
	}
	if len(got) != 4 {
		t.Fatalf("admission ran %d times, want 4", len(got))
	}
	mutating, validating, del := got[0], got[1], got[2]
	if mutating.Name != "" || validating.Name != name {
		t.Errorf("names seen: mutating %q, validating %q; want \"\" then the generated %q", mutating.Name, validating.Name, name)
	}
	for i, a := range got {
		if a.User == nil || a.User.Name != "alice" {
			t.Errorf("request %d: User %+v, want alice", i, a.User)
		}
	}
	if mutating.FieldManager != "tester" {
		t.Errorf("FieldManager %q, want tester", mutating.FieldManager)
	}
	co, ok := mutating.Options.(*meta.CreateOptions)
	if !ok || co.FieldManager != "tester" || co.FieldValidation != "Strict" || co.Kind != "CreateOptions" {
		t.Errorf("create Options %#v, want CreateOptions with the request's fieldManager and fieldValidation", mutating.Options)
	}
	do2, ok := del.Options.(*meta.DeleteOptions)
	if !ok || len(do2.DryRun) != 1 || do2.DryRun[0] != "All" || !del.DryRun {
		t.Errorf("delete Options %#v, want DeleteOptions with dryRun All", del.Options)
	}
}
