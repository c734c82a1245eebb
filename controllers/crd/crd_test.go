package crd_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/controllers/crd"
	"github.com/kapi-dev/kapi/kinds/apiextensionsv1"
	"github.com/kapi-dev/kapi/meta"
)

const crontabCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: crontabs, singular: crontab, kind: CronTab, shortNames: [ct], categories: [all]}
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}
    selectableFields:
    - jsonPath: .spec.cronSpec
    additionalPrinterColumns:
    - {name: Spec, type: string, jsonPath: .spec.cronSpec}
    - {name: Ready, type: string, jsonPath: '.status.conditions[?(@.type=="Ready")].status'}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              cronSpec: {type: string, pattern: '^(\d+|\*)(/\d+)?(\s+(\d+|\*)(/\d+)?){4}$'}
              image: {type: string}
              replicas: {type: integer, minimum: 1, default: 1}
              port:
                anyOf: [{type: integer}, {type: string}]
                x-kubernetes-int-or-string: true
          status:
            type: object
            properties:
              replicas: {type: integer}
              conditions:
                type: array
                items:
                  type: object
                  properties:
                    type: {type: string}
                    status: {type: string}
`

type env struct {
	srv  *apiserver.Server
	ts   *httptest.Server
	ctrl *crd.Controller
}

func start(t *testing.T, kinds ...apiserver.Kind) *env {
	t.Helper()
	srv := apiserver.New(apiserver.Options{})
	for _, k := range kinds {
		srv.Register(k)
	}
	ctrl := crd.Serve(srv, crd.Options{CleanupInterval: 20 * time.Millisecond})
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = ctrl.Run(ctx)
	}()
	t.Cleanup(func() { cancel(); <-done; ts.Close(); srv.Close() })
	return &env{srv: srv, ts: ts, ctrl: ctrl}
}

func (e *env) do(t *testing.T, method, path, contentType, body string) (int, string) {
	t.Helper()
	return e.send(t, method, path, map[string]string{"Content-Type": contentType}, body)
}

// get GETs path accepting the media type accept.
func (e *env) get(t *testing.T, path, accept string) (int, string) {
	t.Helper()
	return e.send(t, "GET", path, map[string]string{"Accept": accept}, "")
}

// send makes a request with the headers that are not empty.
func (e *env) send(t *testing.T, method, path string, headers map[string]string, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, e.ts.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		if v != "" {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var sb strings.Builder
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		sb.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return resp.StatusCode, sb.String()
}

func manifest(t *testing.T, y string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	crds, err := crd.Manifests([]byte(y))
	if err != nil || len(crds) != 1 {
		t.Fatalf("manifest: %v (%d)", err, len(crds))
	}
	return crds[0]
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

func (e *env) definition(t *testing.T, name string) apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	code, body := e.do(t, "GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"+name, "", "")
	if code != http.StatusOK {
		t.Fatalf("get definition %s: %d %s", name, code, body)
	}
	var d apiextensionsv1.CustomResourceDefinition
	if err := json.Unmarshal([]byte(body), &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// eventually polls cond until it holds, failing with what it last saw.
func eventually(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		ok, seen := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: last seen %s", what, seen)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

const crontabs = "/apis/stable.example.com/v1/namespaces/default/crontabs"

func TestDefinitionServesItsKind(t *testing.T) {
	e := start(t)
	if err := crd.Create(ctx(t), e.srv, manifest(t, crontabCRD)); err != nil {
		t.Fatal(err)
	}
	d := e.definition(t, "crontabs.stable.example.com")
	na, est := d.Condition(apiextensionsv1.NamesAccepted), d.Condition(apiextensionsv1.Established)
	if na == nil || na.Status != "True" || na.Reason != "NoConflicts" || est == nil || est.Status != "True" || est.Reason != "InitialNamesAccepted" {
		t.Fatalf("conditions: %+v", d.Status.Conditions)
	}
	if d.Status.AcceptedNames.Kind != "CronTab" || d.Status.AcceptedNames.ListKind != "CronTabList" ||
		len(d.Status.StoredVersions) != 1 || d.Status.StoredVersions[0] != "v1" {
		t.Fatalf("status: %+v", d.Status)
	}
	code, body := e.do(t, "POST", crontabs, "application/json",
		`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"a"},"spec":{"cronSpec":"* * * * */5","port":"http","extra":1}}`)
	if code != http.StatusCreated || !strings.Contains(body, `"replicas":1`) || strings.Contains(body, "extra") {
		t.Fatalf("create: %d %s", code, body)
	}
	code, body = e.do(t, "POST", crontabs, "application/json",
		`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"b"},"spec":{"cronSpec":"never"}}`)
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, "spec.cronSpec") {
		t.Fatalf("create against the pattern: %d %s", code, body)
	}
	code, body = e.do(t, "PATCH", crontabs+"/a/status", "application/merge-patch+json",
		`{"status":{"replicas":1,"conditions":[{"type":"Ready","status":"True"}]}}`)
	if code != http.StatusOK {
		t.Fatalf("status: %d %s", code, body)
	}
	req, _ := http.NewRequest("GET", e.ts.URL+crontabs, nil)
	req.Header.Set("Accept", "application/json;as=Table;g=meta.k8s.io;v=v1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var table struct {
		Rows []struct{ Cells []any } `json:"rows"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&table); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if len(table.Rows) != 1 || len(table.Rows[0].Cells) != 3 || table.Rows[0].Cells[1] != "* * * * */5" || table.Rows[0].Cells[2] != "True" {
		t.Fatalf("table: %+v", table)
	}
	if code, body = e.do(t, "GET", crontabs+"?fieldSelector=spec.cronSpec%3Dnone", "", ""); code != http.StatusOK || strings.Contains(body, `"name":"a"`) {
		t.Fatalf("field selector: %d %s", code, body)
	}
	if code, body = e.do(t, "GET", crontabs+"/a/scale", "", ""); code != http.StatusOK || !strings.Contains(body, `"replicas":1`) {
		t.Fatalf("scale: %d %s", code, body)
	}
	if code, body = e.do(t, "GET", "/apis/stable.example.com/v1", "", ""); !strings.Contains(body, `"shortNames":["ct"]`) || !strings.Contains(body, `"categories":["all"]`) {
		t.Fatalf("discovery: %d %s", code, body)
	}
}

// A definition whose names another definition of the group holds is not
// served: NamesAccepted is False with kube's reason and message.
func TestNamesConflict(t *testing.T) {
	e := start(t)
	if err := crd.Create(ctx(t), e.srv, manifest(t, crontabCRD)); err != nil {
		t.Fatal(err)
	}
	other := manifest(t, crontabCRD)
	other.Name, other.Spec.Names.Plural, other.Spec.Names.Singular, other.Spec.Names.ShortNames = "crontabz.stable.example.com", "crontabz", "crontabz", nil
	b, _ := json.Marshal(other)
	if code, body := e.do(t, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "application/json", string(b)); code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, body)
	}
	eventually(t, "NamesAccepted=False", func() (bool, string) {
		d := e.definition(t, other.Name)
		c := d.Condition(apiextensionsv1.NamesAccepted)
		est := d.Condition(apiextensionsv1.Established)
		ok := c != nil && c.Status == "False" && c.Reason == "ListKindConflict" && c.Message == `"CronTabList" is already in use` &&
			est != nil && est.Status == "False" && est.Reason == "NotAccepted"
		return ok, mustJSON(d.Status)
	})
	if code, _ := e.do(t, "GET", "/apis/stable.example.com/v1/crontabz", "", ""); code != http.StatusNotFound {
		t.Fatalf("a definition without its names is served: %d", code)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// Bad definitions are refused with 422 and kube's messages; nothing is
// served for them.
func TestDefinitionRefused(t *testing.T) {
	widget := apiserver.Kind{Group: "stable.example.com", Version: "v1", Kind: "Widget", Resource: "widgets", Namespaced: true,
		New: func() meta.Object { return &meta.Unstructured{} }}
	tests := []struct {
		name string
		edit func(d *apiextensionsv1.CustomResourceDefinition)
		want []string
	}{
		{"untyped field", func(d *apiextensionsv1.CustomResourceDefinition) {
			d.Spec.Versions[0].Schema.OpenAPIV3Schema = []byte(`{"type":"object","properties":{"spec":{"properties":{"a":{"type":"string"}}}}}`)
		}, []string{"spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields"}},
		{"root not an object", func(d *apiextensionsv1.CustomResourceDefinition) {
			d.Spec.Versions[0].Schema.OpenAPIV3Schema = []byte(`{"type":"string"}`)
		}, []string{`spec.validation.openAPIV3Schema.type: Invalid value: "string": must be object at the root`}},
		{"typed anyOf", func(d *apiextensionsv1.CustomResourceDefinition) {
			d.Spec.Versions[0].Schema.OpenAPIV3Schema = []byte(`{"type":"object","properties":{"a":{"type":"string","anyOf":[{"type":"string"}]}}}`)
		}, []string{"spec.validation.openAPIV3Schema.properties[a].anyOf[0].type: Forbidden: must be empty to be structural"}},
		{"no schema", func(d *apiextensionsv1.CustomResourceDefinition) { d.Spec.Versions[0].Schema = nil },
			[]string{"spec.versions[0].schema.openAPIV3Schema: Required value"}},
		{"wrong name", func(d *apiextensionsv1.CustomResourceDefinition) { d.Name = "crontab.stable.example.com" },
			[]string{`metadata.name: Invalid value: "crontab.stable.example.com": must be spec.names.plural+"."+spec.group`}},
		{"no storage version", func(d *apiextensionsv1.CustomResourceDefinition) { d.Spec.Versions[0].Storage = false },
			[]string{"must have exactly one version marked as storage version"}},
		{"bad scope", func(d *apiextensionsv1.CustomResourceDefinition) { d.Spec.Scope = "Galaxy" },
			[]string{`spec.scope: Unsupported value: "Galaxy"`}},
		{"collides with a registered kind", func(d *apiextensionsv1.CustomResourceDefinition) {
			d.Name, d.Spec.Names.Plural, d.Spec.Names.Singular, d.Spec.Names.Kind = "widgets.stable.example.com", "widgets", "widget", "Widget"
		}, []string{"spec.names.plural", "resource widgets.stable.example.com is already registered"}},
		{"bad column path", func(d *apiextensionsv1.CustomResourceDefinition) {
			d.Spec.Versions[0].AdditionalPrinterColumns[0].JSONPath = "spec"
		}, []string{"spec.additionalPrinterColumns[0].JSONPath", "must be a simple json path starting with ."}},
	}
	e := start(t, widget)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := manifest(t, crontabCRD)
			tc.edit(d)
			b, _ := json.Marshal(d)
			code, body := e.do(t, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "application/json", string(b))
			var st meta.Status
			if code != http.StatusUnprocessableEntity || json.Unmarshal([]byte(body), &st) != nil {
				t.Fatalf("%d %s", code, body)
			}
			for _, w := range tc.want {
				if !strings.Contains(st.Message, w) {
					t.Errorf("missing %q in %s", w, body)
				}
			}
		})
	}
	if code, body := e.do(t, "GET", "/apis/stable.example.com/v1", "", ""); strings.Contains(body, "crontabs") {
		t.Fatalf("a refused definition is served: %d %s", code, body)
	}
}

// Deleting a definition deletes its objects, waiting for their
// finalizers, refuses new ones meanwhile, then stops serving the kind.
func TestDeleteDefinition(t *testing.T) {
	e := start(t)
	if err := crd.Create(ctx(t), e.srv, manifest(t, crontabCRD)); err != nil {
		t.Fatal(err)
	}
	code, body := e.do(t, "POST", crontabs, "application/json",
		`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"held","finalizers":["example.com/hold"]}}`)
	if code != http.StatusCreated {
		t.Fatalf("%d %s", code, body)
	}
	e.do(t, "POST", crontabs, "application/json", `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"free"}}`)
	// The definition's watch shows the deletion's stages, as kube's.
	watch, err := http.Get(e.ts.URL + "/apis/apiextensions.k8s.io/v1/customresourcedefinitions?watch=1&fieldSelector=metadata.name%3Dcrontabs.stable.example.com")
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Body.Close()
	code, body = e.do(t, "DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/crontabs.stable.example.com", "", "")
	if code != http.StatusOK || !strings.Contains(body, `"type":"Terminating","status":"True","lastTransitionTime":`) ||
		!strings.Contains(body, `"reason":"InstanceDeletionPending","message":"CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon"`) {
		t.Fatalf("delete: %d %s", code, body)
	}
	eventually(t, "the free object deleted", func() (bool, string) {
		code, body := e.do(t, "GET", crontabs+"/free", "", "")
		return code == http.StatusNotFound, body
	})
	d := e.definition(t, "crontabs.stable.example.com")
	if c := d.Condition(apiextensionsv1.Terminating); c == nil || c.Status != "True" || c.Reason != "InstanceDeletionInProgress" {
		t.Fatalf("terminating: %+v", d.Status.Conditions)
	}
	checkTerminatingRequests(t, e)
	if code, body := e.do(t, "PATCH", crontabs+"/held", "application/merge-patch+json", `{"metadata":{"finalizers":null}}`); code != http.StatusOK {
		t.Fatalf("release: %d %s", code, body)
	}
	eventually(t, "the definition gone", func() (bool, string) {
		code, body := e.do(t, "GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/crontabs.stable.example.com", "", "")
		return code == http.StatusNotFound, body
	})
	checkDeletionStages(t, watch.Body)
	// The kind stops being served before the definition goes, so a
	// client that saw the definition deleted does not find the kind.
	if code, body := e.do(t, "GET", crontabs, "", ""); code != http.StatusNotFound {
		t.Fatalf("the kind is served after its definition is gone: %d %s", code, body)
	}
}

// checkDeletionStages reads a definition's watch up to its DELETED event
// and checks the stages its Terminating condition went through.
func checkDeletionStages(t *testing.T, body io.Reader) {
	t.Helper()
	dec := json.NewDecoder(body)
	var stages []string
	for {
		var ev struct {
			Type   string
			Object apiextensionsv1.CustomResourceDefinition
		}
		if err := dec.Decode(&ev); err != nil {
			t.Fatalf("watch: %v after %v", err, stages)
		}
		if c := ev.Object.Condition(apiextensionsv1.Terminating); c != nil {
			stage := c.Status + "/" + c.Reason + ": " + c.Message
			if len(stages) == 0 || stages[len(stages)-1] != stage {
				stages = append(stages, stage)
			}
		}
		if ev.Type == "DELETED" {
			break
		}
	}
	want := []string{
		"True/InstanceDeletionPending: CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
		"True/InstanceDeletionInProgress: CustomResource deletion is in progress",
		"False/InstanceDeletionCompleted: removed all instances",
	}
	if !slices.Equal(stages, want) {
		t.Errorf("deletion stages:\n got %q\nwant %q", stages, want)
	}
}

// checkTerminatingRequests sends requests to the kind of a definition
// being deleted, which holds the object "held": what would create an
// object is 403 Forbidden, before validation and name generation, as
// kube-apiserver answers; the rest is served.
func checkTerminatingRequests(t *testing.T, e *env) {
	t.Helper()
	const refused = "create not allowed while custom resource definition is terminating"
	forbidden := func(name string) string {
		if name == "" {
			return `{"code":403,"reason":"Forbidden","message":"crontabs.stable.example.com is forbidden: ` + refused +
				`","details":{"group":"stable.example.com","kind":"crontabs"}}`
		}
		return `{"code":403,"reason":"Forbidden","message":"crontabs.stable.example.com \"` + name + `\" is forbidden: ` + refused +
			`","details":{"name":"` + name + `","group":"stable.example.com","kind":"crontabs"}}`
	}
	notFound := `{"code":404,"reason":"NotFound","message":"crontabs.stable.example.com \"missing\" not found","details":{"name":"missing","group":"stable.example.com","kind":"crontabs"}}`
	obj := func(meta, spec string) string {
		return `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":` + meta + `,"spec":` + spec + `}`
	}
	tests := []struct {
		name, method, path, ctype, body string
		code                            int
		status                          string // the Status answered, when not a success
	}{
		{"create", "POST", crontabs, "application/json", obj(`{"name":"late"}`, `{}`), 403, forbidden("late")},
		{"create with generateName", "POST", crontabs, "application/json", obj(`{"generateName":"late-"}`, `{}`), 403, forbidden("")},
		{"create of an invalid object", "POST", crontabs, "application/json", obj(`{"name":"bad"}`, `{"cronSpec":"nope"}`), 403, forbidden("bad")},
		{"dry-run create", "POST", crontabs + "?dryRun=All", "application/json", obj(`{"name":"dry"}`, `{}`), 403, forbidden("dry")},
		{"apply of a missing object", "PATCH", crontabs + "/applied?fieldManager=m", "application/apply-patch+yaml", obj(`{"name":"applied"}`, `{}`), 403, forbidden("applied")},
		{"merge patch of a missing object", "PATCH", crontabs + "/missing", "application/merge-patch+json", `{"spec":{}}`, 404, notFound},
		{"update of a missing object", "PUT", crontabs + "/missing", "application/json", obj(`{"name":"missing"}`, `{}`), 404, notFound},
		{"get", "GET", crontabs + "/held", "", "", 200, ""},
		{"list", "GET", crontabs, "", "", 200, ""},
		{"patch", "PATCH", crontabs + "/held", "application/merge-patch+json", `{"spec":{"image":"y"}}`, 200, ""},
		{"apply to an existing object", "PATCH", crontabs + "/held?fieldManager=m&force=true", "application/apply-patch+yaml", obj(`{"name":"held"}`, `{"image":"z"}`), 200, ""},
		{"delete", "DELETE", crontabs + "/held", "", "", 200, ""},
	}
	for _, tc := range tests {
		code, body := e.do(t, tc.method, tc.path, tc.ctype, tc.body)
		if code != tc.code {
			t.Errorf("%s: %d %s, want %d", tc.name, code, body, tc.code)
			continue
		}
		if tc.status == "" {
			continue
		}
		var st struct {
			Code    int             `json:"code"`
			Reason  string          `json:"reason"`
			Message string          `json:"message"`
			Details json.RawMessage `json:"details"`
		}
		if err := json.Unmarshal([]byte(body), &st); err != nil {
			t.Fatalf("%s: %v: %s", tc.name, err, body)
		}
		if got, _ := json.Marshal(st); string(got) != tc.status {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.status)
		}
	}
}

// Changing a definition changes its kind for the requests that follow,
// without a restart.
func TestUpdateDefinition(t *testing.T) {
	e := start(t)
	if err := crd.Create(ctx(t), e.srv, manifest(t, crontabCRD)); err != nil {
		t.Fatal(err)
	}
	long := `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"%s"},"spec":{"image":"a-long-image-name"}}`
	if code, body := e.do(t, "POST", crontabs, "application/json", strings.Replace(long, "%s", "before", 1)); code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, body)
	}
	code, body := e.do(t, "PATCH", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/crontabs.stable.example.com", "application/json-patch+json",
		`[{"op":"add","path":"/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/image/maxLength","value":5},
		  {"op":"add","path":"/spec/names/shortNames/-","value":"cts"}]`)
	if code != http.StatusOK {
		t.Fatalf("patch definition: %d %s", code, body)
	}
	eventually(t, "the new schema enforced", func() (bool, string) {
		code, body := e.do(t, "POST", crontabs+"?dryRun=All", "application/json", strings.Replace(long, "%s", "after", 1))
		return code == http.StatusUnprocessableEntity && strings.Contains(body, "spec.image"), body
	})
	if code, body := e.do(t, "GET", "/apis/stable.example.com/v1", "", ""); !strings.Contains(body, `"shortNames":["ct","cts"]`) {
		t.Fatalf("discovery after the update: %d %s", code, body)
	}
	if code, body := e.do(t, "GET", crontabs+"/before", "", ""); code != http.StatusOK {
		t.Fatalf("object stored before the update: %d %s", code, body)
	}
}
