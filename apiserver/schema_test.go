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

const cogDoc = `
type: object
properties:
  spec:
    type: object
    required: [teeth]
    properties:
      teeth: {type: integer, minimum: 3, maximum: 60}
      finish: {type: string, enum: [matte, gloss], default: matte}
      label: {type: string, pattern: '^[a-z]+$'}
      extra:
        type: object
        x-kubernetes-preserve-unknown-fields: true
  status:
    type: object
    properties:
      ok: {type: boolean}
`

const cogsPath = "/apis/dyn.example.com/v1/namespaces/default/cogs"

func cogKind(t testing.TB) apiserver.Kind {
	t.Helper()
	s, err := schema.FromOpenAPI([]byte(cogDoc))
	if err != nil {
		t.Fatal(err)
	}
	return apiserver.Kind{
		Group: "dyn.example.com", Version: "v1", Kind: "Cog", Resource: "cogs", Namespaced: true,
		Subresources: apiserver.Subresources{Status: true}, Schema: s,
		New: func() meta.Object { return &meta.Unstructured{} },
	}
}

func cog(name, spec string) string {
	return `{"apiVersion":"dyn.example.com/v1","kind":"Cog","metadata":{"name":"` + name + `"},"spec":` + spec + `}`
}

// TestUnstructuredSchemaDefaults checks a run-time kind's schema defaults
// are stored on create, update and patch, so that reads show them.
func TestUnstructuredSchemaDefaults(t *testing.T) {
	ts := startWith(t, cogKind(t))
	if r := do(t, ts.Server, "POST", cogsPath, "application/json", cog("c", `{"teeth":12}`)); r.code != http.StatusCreated {
		t.Fatalf("create: %d %s", r.code, r.body)
	}
	if r := do(t, ts.Server, "GET", cogsPath+"/c", "", ""); !strings.Contains(string(r.body), `"spec":{"finish":"matte","teeth":12}`) {
		t.Errorf("get after create: %s", r.body)
	}
	r := do(t, ts.Server, "PUT", cogsPath+"/c", "application/json", cog("c", `{"teeth":13}`))
	if !strings.Contains(string(r.body), `"spec":{"finish":"matte","teeth":13}`) {
		t.Errorf("update: %d %s", r.code, r.body)
	}
	r = do(t, ts.Server, "PATCH", cogsPath+"/c", "application/json-patch+json", `[{"op":"remove","path":"/spec/finish"}]`)
	if !strings.Contains(string(r.body), `"spec":{"finish":"matte","teeth":13}`) {
		t.Errorf("patch: %d %s", r.code, r.body)
	}
}

// TestUnstructuredSchemaValidation checks every write path answers 422
// with one cause per problem.
func TestUnstructuredSchemaValidation(t *testing.T) {
	ts := startWith(t, cogKind(t))
	if r := do(t, ts.Server, "POST", cogsPath, "application/json", cog("ok", `{"teeth":12}`)); r.code != http.StatusCreated {
		t.Fatalf("create: %d %s", r.code, r.body)
	}
	tests := []struct {
		name, method, path, contentType, body string
		causes                                []meta.StatusCause
	}{
		{"create", "POST", cogsPath, "application/json", cog("bad", `{"teeth":99,"finish":"shiny","label":"A"}`), []meta.StatusCause{
			{Type: meta.CauseTypeFieldValueNotSupported, Field: "spec.finish", Message: `Unsupported value: "shiny": supported values: "matte", "gloss"`},
			{Type: meta.CauseTypeFieldValueInvalid, Field: "spec.label", Message: `Invalid value: "A": spec.label in body should match '^[a-z]+$'`},
			{Type: meta.CauseTypeFieldValueInvalid, Field: "spec.teeth", Message: `Invalid value: 99: spec.teeth in body should be less than or equal to 60`},
		}},
		{"create without a required field", "POST", cogsPath, "application/json", cog("bad", `{}`), []meta.StatusCause{
			{Type: meta.CauseTypeFieldValueRequired, Field: "spec.teeth", Message: "Required value"},
		}},
		{"update", "PUT", cogsPath + "/ok", "application/json", cog("ok", `{"teeth":"many"}`), []meta.StatusCause{
			{Type: meta.CauseTypeTypeInvalid, Field: "spec.teeth", Message: `Invalid value: "string": spec.teeth in body must be of type integer: "string"`},
		}},
		{"merge patch", "PATCH", cogsPath + "/ok", "application/merge-patch+json", `{"spec":{"teeth":1}}`, []meta.StatusCause{
			{Type: meta.CauseTypeFieldValueInvalid, Field: "spec.teeth", Message: `Invalid value: 1: spec.teeth in body should be greater than or equal to 3`},
		}},
		{"status patch", "PATCH", cogsPath + "/ok/status", "application/merge-patch+json", `{"status":{"ok":"yes"}}`, []meta.StatusCause{
			{Type: meta.CauseTypeTypeInvalid, Field: "status.ok", Message: `Invalid value: "string": status.ok in body must be of type boolean: "string"`},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := do(t, ts.Server, tc.method, tc.path, tc.contentType, tc.body)
			if r.code != http.StatusUnprocessableEntity {
				t.Fatalf("%d %s", r.code, r.body)
			}
			st := decodeStatus(t, r)
			if st.Reason != meta.StatusReasonInvalid || st.Details == nil || len(st.Details.Causes) != len(tc.causes) {
				t.Fatalf("status %+v", st)
			}
			for i, c := range tc.causes {
				if st.Details.Causes[i] != c {
					t.Errorf("cause %d = %+v, want %+v", i, st.Details.Causes[i], c)
				}
			}
		})
	}
}

// TestUnstructuredFieldValidation checks unknown fields against the
// schema under each fieldValidation directive, on create and patch.
func TestUnstructuredFieldValidation(t *testing.T) {
	ts := startWith(t, cogKind(t))
	body := cog("c", `{"teeth":5,"foo":1,"extra":{"kept":true}}`)
	r := do(t, ts.Server, "POST", cogsPath+"?fieldValidation=Strict", "application/json",
		strings.Replace(body, `"spec"`, `"bar":2,"spec"`, 1))
	st := decodeStatus(t, r)
	if r.code != http.StatusBadRequest || st.Message != `Cog in version "v1" cannot be handled as a Cog: strict decoding error: unknown field "bar", unknown field "spec.foo"` {
		t.Errorf("strict: %d %s", r.code, r.body)
	}
	r = do(t, ts.Server, "POST", cogsPath+"?fieldValidation=Warn", "application/json", body)
	if r.code != http.StatusCreated || !strings.Contains(r.header.Get("Warning"), `unknown field \"spec.foo\"`) {
		t.Errorf("warn: %d %q %s", r.code, r.header.Get("Warning"), r.body)
	}
	if strings.Contains(string(r.body), "foo") || !strings.Contains(string(r.body), `"extra":{"kept":true}`) {
		t.Errorf("warn: unknown field kept or preserved one dropped: %s", r.body)
	}
	r = do(t, ts.Server, "PATCH", cogsPath+"/c?fieldValidation=Strict", "application/merge-patch+json", `{"spec":{"baz":1}}`)
	if st := decodeStatus(t, r); r.code != http.StatusUnprocessableEntity || !strings.HasSuffix(st.Message, `": strict decoding error: unknown field "spec.baz"`) {
		t.Errorf("strict patch: %d %s", r.code, r.body)
	}
	r = do(t, ts.Server, "PATCH", cogsPath+"/c?fieldValidation=Ignore", "application/merge-patch+json", `{"spec":{"baz":1}}`)
	if r.code != http.StatusOK || r.header.Get("Warning") != "" || strings.Contains(string(r.body), "baz") {
		t.Errorf("ignore patch: %d %q %s", r.code, r.header.Get("Warning"), r.body)
	}
	// Unknown metadata fields are reported too, and never stored.
	withMeta := strings.Replace(cog("m", `{"teeth":5}`), `"name":"m"`, `"name":"m","labelz":{"a":"b"}`, 1)
	r = do(t, ts.Server, "POST", cogsPath+"?fieldValidation=Strict", "application/json", withMeta)
	if st := decodeStatus(t, r); r.code != http.StatusBadRequest || st.Message != `Cog in version "v1" cannot be handled as a Cog: strict decoding error: unknown field "metadata.labelz"` {
		t.Errorf("strict, unknown metadata field: %d %s", r.code, r.body)
	}
	r = do(t, ts.Server, "POST", cogsPath+"?fieldValidation=Warn", "application/json", withMeta)
	if r.code != http.StatusCreated || !strings.Contains(r.header.Get("Warning"), `unknown field \"metadata.labelz\"`) || strings.Contains(string(r.body), "labelz") {
		t.Errorf("warn, unknown metadata field: %d %q %s", r.code, r.header.Get("Warning"), r.body)
	}
	r = do(t, ts.Server, "PATCH", cogsPath+"/m?fieldValidation=Strict", "application/merge-patch+json", `{"metadata":{"finalizerz":["x"]}}`)
	if st := decodeStatus(t, r); r.code != http.StatusUnprocessableEntity || !strings.HasSuffix(st.Message, `": strict decoding error: unknown field "metadata.finalizerz"`) {
		t.Errorf("strict patch, unknown metadata field: %d %s", r.code, r.body)
	}
}

// TestTypedSchemaValidation checks a typed kind's struct-tag constraints
// are enforced without a Validate hook, and its defaults applied.
func TestTypedSchemaValidation(t *testing.T) {
	type spec struct {
		Replicas *int32 `json:"replicas,omitempty" default:"1" maximum:"10"`
		Mode     string `json:"mode,omitempty" enum:"a,b"`
	}
	type thing struct {
		meta.TypeMeta   `json:",inline"`
		meta.ObjectMeta `json:"metadata,omitempty"`
		Spec            spec `json:"spec,omitempty"`
	}
	ts := startWith(t, apiserver.Kind{Group: "typed.example.com", Version: "v1", Kind: "Thing", Resource: "things",
		New: func() meta.Object { return &thing{} }})
	path := "/apis/typed.example.com/v1/things"
	r := do(t, ts.Server, "POST", path, "application/json", `{"metadata":{"name":"t"},"spec":{}}`)
	if r.code != http.StatusCreated || !strings.Contains(string(r.body), `"spec":{"replicas":1}`) {
		t.Errorf("create: %d %s", r.code, r.body)
	}
	r = do(t, ts.Server, "POST", path, "application/json", `{"metadata":{"name":"u"},"spec":{"replicas":11,"mode":"c"}}`)
	want := `Thing.typed.example.com "u" is invalid: [spec.mode: Unsupported value: "c": supported values: "a", "b", spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10]`
	if st := decodeStatus(t, r); r.code != http.StatusUnprocessableEntity || st.Message != want {
		t.Errorf("invalid: %d %s", r.code, st.Message)
	}
}

func TestAdmissionOrder(t *testing.T) {
	var calls []string
	k := cogKind(t)
	k.Validate = func(_ context.Context, obj, _ meta.Object) status.FieldErrors {
		calls = append(calls, "validate")
		return nil
	}
	srv := apiserver.New(apiserver.Options{
		MutatingAdmission: []apiserver.AdmissionFunc{func(_ context.Context, a *apiserver.AdmissionRequest) error {
			calls = append(calls, "mutate "+string(a.Operation))
			if u, ok := a.Object.(*meta.Unstructured); ok {
				spec := u.Content["spec"].(map[string]any)
				if _, ok := spec["finish"]; !ok {
					t.Error("mutating admission ran before defaulting")
				}
				delete(spec, "finish") // defaulted again
				spec["label"] = "admitted"
			}
			return nil
		}},
		ValidatingAdmission: []apiserver.AdmissionFunc{func(_ context.Context, a *apiserver.AdmissionRequest) error {
			calls = append(calls, "admit "+string(a.Operation))
			return nil
		}},
	})
	srv.Register(k)
	ts := startServer(t, srv)
	r := do(t, ts, "POST", cogsPath, "application/json", cog("c", `{"teeth":5}`))
	if r.code != http.StatusCreated || !strings.Contains(string(r.body), `"spec":{"finish":"matte","label":"admitted","teeth":5}`) {
		t.Errorf("create: %d %s", r.code, r.body)
	}
	do(t, ts, "PATCH", cogsPath+"/c", "application/merge-patch+json", `{"spec":{"teeth":6}}`)
	do(t, ts, "DELETE", cogsPath+"/c", "", "")
	want := "mutate CREATE,validate,admit CREATE,mutate UPDATE,validate,admit UPDATE,mutate DELETE,admit DELETE"
	if got := strings.Join(calls, ","); got != want {
		t.Errorf("calls %s, want %s", got, want)
	}
}

func TestAdmissionRejection(t *testing.T) {
	deny := func(_ context.Context, a *apiserver.AdmissionRequest) error {
		if a.Operation == apiserver.OperationDelete && a.OldObject.GetObjectMeta().Name == "keep" {
			return status.New(http.StatusConflict, meta.StatusReasonConflict, "kept on purpose")
		}
		if a.Object != nil && a.Object.GetObjectMeta().Name == "denied" {
			return errBlocked
		}
		return nil
	}
	srv := apiserver.New(apiserver.Options{ValidatingAdmission: []apiserver.AdmissionFunc{deny}})
	srv.Register(cogKind(t))
	ts := startServer(t, srv)
	r := do(t, ts, "POST", cogsPath, "application/json", cog("denied", `{"teeth":5}`))
	st := decodeStatus(t, r)
	if r.code != http.StatusForbidden || st.Reason != meta.StatusReasonForbidden || st.Message != `cogs.dyn.example.com "denied" is forbidden: blocked by policy` {
		t.Errorf("denied: %d %s", r.code, r.body)
	}
	if r := do(t, ts, "GET", cogsPath+"/denied", "", ""); r.code != http.StatusNotFound {
		t.Errorf("a denied create was stored: %d", r.code)
	}
	do(t, ts, "POST", cogsPath, "application/json", cog("keep", `{"teeth":5}`))
	r = do(t, ts, "DELETE", cogsPath+"/keep", "", "")
	if st := decodeStatus(t, r); r.code != http.StatusConflict || st.Message != "kept on purpose" {
		t.Errorf("delete: %d %s", r.code, r.body)
	}
}

// TestAdmissionDryRun checks admission runs on dry runs, told so, and
// nothing is stored.
func TestAdmissionDryRun(t *testing.T) {
	var dry []bool
	record := func(_ context.Context, a *apiserver.AdmissionRequest) error {
		dry = append(dry, a.DryRun)
		return nil
	}
	srv := apiserver.New(apiserver.Options{MutatingAdmission: []apiserver.AdmissionFunc{record}, ValidatingAdmission: []apiserver.AdmissionFunc{record}})
	srv.Register(cogKind(t))
	ts := startServer(t, srv)
	if r := do(t, ts, "POST", cogsPath+"?dryRun=All", "application/json", cog("c", `{"teeth":5}`)); r.code != http.StatusCreated {
		t.Fatalf("dry create: %d %s", r.code, r.body)
	}
	if r := do(t, ts, "GET", cogsPath+"/c", "", ""); r.code != http.StatusNotFound {
		t.Errorf("dry create stored: %d", r.code)
	}
	do(t, ts, "POST", cogsPath, "application/json", cog("c", `{"teeth":5}`))
	do(t, ts, "PATCH", cogsPath+"/c?dryRun=All", "application/merge-patch+json", `{"spec":{"teeth":7}}`)
	do(t, ts, "DELETE", cogsPath+"/c?dryRun=All", "", "")
	if r := do(t, ts, "GET", cogsPath+"/c", "", ""); !strings.Contains(string(r.body), `"teeth":5`) {
		t.Errorf("dry patch or delete stored: %d %s", r.code, r.body)
	}
	want := []bool{true, true, false, false, true, true, true, true}
	if len(dry) != len(want) {
		t.Fatalf("admission calls %v, want %v", dry, want)
	}
	for i := range want {
		if dry[i] != want[i] {
			t.Errorf("admission calls %v, want %v", dry, want)
			break
		}
	}
}

var errBlocked = errorString("blocked by policy")

type errorString string

func (e errorString) Error() string { return string(e) }

func startServer(t testing.TB, srv *apiserver.Server) *httptest.Server {
	t.Helper()
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return ts
}
