package apiserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/storage/memory"
)

func TestRegisterVersions(t *testing.T) {
	type notConvertible struct{ widgetV1beta1Spec }
	tests := []struct {
		name    string
		change  func(k *apiserver.Kind)
		wantErr string
	}{
		{"two versions", func(k *apiserver.Kind) {}, ""},
		{"no storage version", func(k *apiserver.Kind) { k.Versions[0].Storage = false }, "no version is the storage version"},
		{"two storage versions", func(k *apiserver.Kind) { k.Versions[1].Storage = true }, "are both the storage version"},
		{"Version other than the storage version", func(k *apiserver.Kind) { k.Version = "v1beta1" }, "is not the storage version v1"},
		{"Version naming the storage version", func(k *apiserver.Kind) { k.Version = "v1" }, ""},
		{"no version served", func(k *apiserver.Kind) { k.Versions[0].NotServed, k.Versions[1].NotServed = true, true }, "no version is served"},
		{"a version twice", func(k *apiserver.Kind) { k.Versions[1].Name = "v1" }, "listed twice"},
		{"a bad version name", func(k *apiserver.Kind) { k.Versions[1].Name = "1beta" }, `version "1beta" is not a DNS-1035 label`},
		{"a type that converts to nothing", func(k *apiserver.Kind) {
			k.Versions[1].New = func() meta.Object { return &widgetNoConversion{} }
		}, "converts to no other version"},
	}
	_ = notConvertible{}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := twoVersionKind("v1")
			tc.change(&k)
			srv := apiserver.New(apiserver.Options{})
			defer srv.Close()
			err := srv.Register(k).Err()
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("Err() = %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("Err() = %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

// widgetNoConversion is a Go type of a version that neither is the hub
// nor converts to it.
type widgetNoConversion struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
}

// TestVersionsReadWrite writes Widgets through each version and reads
// them through both: each read is in the version asked for, each request
// to v1beta1 carries the deprecation warning.
func TestVersionsReadWrite(t *testing.T) {
	_, ts := startVersions(t, nil, twoVersionKind("v1"))
	r := do(t, ts, "POST", v1beta1Path, "application/json",
		`{"apiVersion":"stable.example.com/v1beta1","kind":"Widget","metadata":{"name":"a"},"spec":{"count":3,"color":"red"}}`)
	if r.code != http.StatusCreated {
		t.Fatalf("create in v1beta1: %d %s", r.code, r.body)
	}
	if diff := cmp.Diff([]string{deprecation}, r.header.Values("Warning")); diff != "" {
		t.Errorf("create in v1beta1: Warning (-want +got):\n%s", diff)
	}
	checkBeta(t, "create response", r.body, 3)
	r = do(t, ts, "POST", v1Path, "application/json",
		`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"b"},"spec":{"replicas":5}}`)
	if r.code != http.StatusCreated {
		t.Fatalf("create in v1: %d %s", r.code, r.body)
	}
	if got := r.header.Values("Warning"); len(got) != 0 {
		t.Errorf("create in v1: Warning %q", got)
	}
	for _, tc := range []struct {
		name string
		want int32
	}{{"a", 3}, {"b", 5}} {
		r := do(t, ts, "GET", v1Path+"/"+tc.name, "", "")
		w := decodeWidget(t, r)
		if w.APIVersion != "stable.example.com/v1" || w.Spec.Replicas == nil || *w.Spec.Replicas != tc.want {
			t.Errorf("GET v1 %s: %s", tc.name, r.body)
		}
		r = do(t, ts, "GET", v1beta1Path+"/"+tc.name, "", "")
		checkBeta(t, "GET v1beta1 "+tc.name, r.body, tc.want)
		if diff := cmp.Diff([]string{deprecation}, r.header.Values("Warning")); diff != "" {
			t.Errorf("GET v1beta1: Warning (-want +got):\n%s", diff)
		}
	}
	// Lists, in JSON and protobuf-less CBOR, are in the version asked for.
	for _, accept := range []string{"application/json", "application/cbor"} {
		r := send(t, ts.URL+v1beta1Path, "GET", map[string]string{"Accept": accept}, nil)
		if r.code != http.StatusOK {
			t.Fatalf("list v1beta1 %s: %d %s", accept, r.code, r.body)
		}
		if accept == "application/json" {
			var l struct {
				APIVersion string            `json:"apiVersion"`
				Items      []json.RawMessage `json:"items"`
			}
			if err := json.Unmarshal(r.body, &l); err != nil || l.APIVersion != "stable.example.com/v1beta1" || len(l.Items) != 2 {
				t.Fatalf("list v1beta1: %v %s", err, r.body)
			}
			checkBeta(t, "list v1beta1 item", l.Items[1], 5)
		} else if !strings.Contains(string(r.body), "Ecount") || strings.Contains(string(r.body), "Hreplicas") {
			t.Errorf("list v1beta1 in CBOR: %q", r.body)
		}
	}
	// Updates and patches through v1beta1 are stored in v1.
	r = do(t, ts, "PATCH", v1beta1Path+"/a", "application/merge-patch+json", `{"spec":{"count":7}}`)
	checkBeta(t, "merge patch in v1beta1", r.body, 7)
	w := decodeWidget(t, do(t, ts, "GET", v1Path+"/a", "", ""))
	if w.Spec.Replicas == nil || *w.Spec.Replicas != 7 || w.Generation != 2 {
		t.Errorf("after patch in v1beta1: %+v", w)
	}
	r = do(t, ts, "PUT", v1beta1Path+"/a", "application/json",
		`{"apiVersion":"stable.example.com/v1beta1","kind":"Widget","metadata":{"name":"a"},"spec":{"count":8,"color":"red"}}`)
	checkBeta(t, "update in v1beta1", r.body, 8)
	// Scale in v1beta1 reads spec.count.
	r = do(t, ts, "GET", v1beta1Path+"/a/scale", "", "")
	if !strings.Contains(string(r.body), `"replicas":8`) {
		t.Errorf("scale in v1beta1: %d %s", r.code, r.body)
	}
	// Tables in v1beta1 carry v1beta1 objects.
	r = send(t, ts.URL+v1beta1Path+"?includeObject=Object", "GET",
		map[string]string{"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}, nil)
	if r.code != http.StatusOK || !strings.Contains(string(r.body), `"count":8`) || strings.Contains(string(r.body), `"replicas":8`) {
		t.Errorf("table in v1beta1: %d %s", r.code, r.body)
	}
	// Partial metadata in v1beta1, and the managedFields of the writes
	// through v1beta1, recorded in v1beta1.
	r = send(t, ts.URL+v1beta1Path+"/a", "GET",
		map[string]string{"Accept": "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io"}, nil)
	var pm struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Name          string                    `json:"name"`
			ManagedFields []meta.ManagedFieldsEntry `json:"managedFields"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(r.body, &pm); err != nil || pm.Kind != "PartialObjectMetadata" || pm.Metadata.Name != "a" ||
		len(pm.Metadata.ManagedFields) == 0 {
		t.Fatalf("partial metadata in v1beta1: %v %s", err, r.body)
	}
	for _, e := range pm.Metadata.ManagedFields {
		if e.APIVersion != "stable.example.com/v1beta1" || strings.Contains(string(e.FieldsV1.Raw), "replicas") {
			t.Errorf("managedFields entry of a write through v1beta1: %+v %s", e, e.FieldsV1.Raw)
		}
	}
	// A body of the other version is refused, as kube-apiserver does.
	r = do(t, ts, "POST", v1beta1Path, "application/json",
		`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"c"}}`)
	if r.code != http.StatusBadRequest {
		t.Errorf("v1 body to v1beta1: %d %s", r.code, r.body)
	}
	// Delete through v1beta1 answers in v1beta1.
	r = do(t, ts, "DELETE", v1beta1Path+"/a", "", "")
	if r.code != http.StatusOK {
		t.Fatalf("delete in v1beta1: %d %s", r.code, r.body)
	}
}

// checkBeta checks a v1beta1 Widget's JSON.
func checkBeta(t *testing.T, what string, body []byte, count int32) {
	t.Helper()
	var w widgetV1beta1
	if err := json.Unmarshal(body, &w); err != nil {
		t.Fatalf("%s: %v: %s", what, err, body)
	}
	var raw struct {
		Spec map[string]any `json:"spec"`
	}
	_ = json.Unmarshal(body, &raw)
	if _, ok := raw.Spec["replicas"]; ok || w.APIVersion != "stable.example.com/v1beta1" || w.Spec.Count == nil || *w.Spec.Count != count {
		t.Errorf("%s: want v1beta1 with count %d: %s", what, count, body)
	}
}

// TestVersionsStoredInOldVersion reads objects stored in an earlier
// storage version, and rewrites them in the new one as they are written;
// StoredVersions follows.
func TestVersionsStoredInOldVersion(t *testing.T) {
	store := memory.New(memory.Options{})
	_, old := startVersions(t, store, twoVersionKind("v1beta1"))
	for _, name := range []string{"a", "b"} {
		r := do(t, old, "POST", v1beta1Path, "application/json",
			`{"metadata":{"name":"`+name+`"},"spec":{"count":2}}`)
		if r.code != http.StatusCreated {
			t.Fatalf("create: %d %s", r.code, r.body)
		}
	}
	old.Close()
	srv, ts := startVersions(t, store, twoVersionKind("v1"))
	ctx := context.Background()
	versions, ok, err := srv.StoredVersions(ctx, "stable.example.com", "widgets")
	if err != nil || !ok {
		t.Fatalf("StoredVersions = %v %v %v, want [v1 v1beta1]", versions, ok, err)
	}
	if diff := cmp.Diff([]string{"v1", "v1beta1"}, versions); diff != "" {
		t.Fatalf("StoredVersions (-want +got):\n%s", diff)
	}
	for _, name := range []string{"a", "b"} {
		w := decodeWidget(t, do(t, ts, "GET", v1Path+"/"+name, "", ""))
		if w.APIVersion != "stable.example.com/v1" || w.Spec.Replicas == nil || *w.Spec.Replicas != 2 {
			t.Errorf("GET v1 of an object stored in v1beta1: %+v", w)
		}
		checkBeta(t, "GET v1beta1 of an object stored in v1beta1", do(t, ts, "GET", v1beta1Path+"/"+name, "", "").body, 2)
	}
	// A write of either rewrites the object in v1, the new storage
	// version, even when nothing changes.
	for _, name := range []string{"a", "b"} {
		r := do(t, ts, "PATCH", v1Path+"/"+name, "application/merge-patch+json", `{}`)
		if r.code != http.StatusOK {
			t.Fatalf("patch: %d %s", r.code, r.body)
		}
	}
	versions, _, err = srv.StoredVersions(ctx, "stable.example.com", "widgets")
	if err != nil {
		t.Fatalf("StoredVersions after migrating = %v %v, want [v1]", versions, err)
	}
	if diff := cmp.Diff([]string{"v1"}, versions); diff != "" {
		t.Fatalf("StoredVersions after migrating (-want +got):\n%s", diff)
	}
	if _, ok, _ := srv.StoredVersions(ctx, "stable.example.com", "sprockets"); ok {
		t.Error("StoredVersions of an unregistered resource: ok")
	}
}

// TestVersionsConversionFailure: a conversion that fails is a 500
// naming the versions, and the stored object is left as it was.
func TestVersionsConversionFailure(t *testing.T) {
	_, ts := startVersions(t, nil, twoVersionKind("v1"))
	createWidget(t, ts, "a", `{"color":"red"}`)
	r := do(t, ts, "PATCH", v1beta1Path+"/a", "application/merge-patch+json", `{"spec":{"color":"poison"}}`)
	st := decodeStatus(t, r)
	if r.code != http.StatusInternalServerError || st.Reason != meta.StatusReasonInternalError ||
		!strings.Contains(st.Message, "converting stable.example.com/v1beta1 Widget to stable.example.com/v1: poisoned") {
		t.Errorf("write failing conversion: %d %s", r.code, r.body)
	}
	w := decodeWidget(t, do(t, ts, "GET", v1Path+"/a", "", ""))
	if w.Spec.Color != "red" || w.Generation != 1 {
		t.Errorf("stored object changed: %+v", w)
	}
	// Stored in v1, it cannot be read in v1beta1.
	do(t, ts, "PATCH", v1Path+"/a", "application/merge-patch+json", `{"spec":{"color":"poison"}}`)
	r = do(t, ts, "GET", v1beta1Path+"/a", "", "")
	st = decodeStatus(t, r)
	if r.code != http.StatusInternalServerError ||
		!strings.Contains(st.Message, "converting stable.example.com/v1 Widget to stable.example.com/v1beta1: poisoned") {
		t.Errorf("read failing conversion: %d %s", r.code, r.body)
	}
	if r := do(t, ts, "GET", v1Path+"/a", "", ""); r.code != http.StatusOK {
		t.Errorf("GET v1 after a failed conversion: %d %s", r.code, r.body)
	}
}

// TestVersionsDiscovery lists the kind in both versions, prefers v1 and
// publishes an OpenAPI document per version.
func TestVersionsDiscovery(t *testing.T) {
	_, ts := startVersions(t, nil, twoVersionKind("v1beta1"))
	r := do(t, ts, "GET", "/apis/stable.example.com", "", "")
	var g struct {
		Versions []struct {
			Version string `json:"version"`
		} `json:"versions"`
		PreferredVersion struct {
			Version string `json:"version"`
		} `json:"preferredVersion"`
	}
	if err := json.Unmarshal(r.body, &g); err != nil || len(g.Versions) != 2 || g.Versions[0].Version != "v1" || g.PreferredVersion.Version != "v1" {
		t.Errorf("group: %v %s", err, r.body)
	}
	for _, v := range []string{"v1", "v1beta1"} {
		r := do(t, ts, "GET", "/apis/stable.example.com/"+v, "", "")
		if r.code != http.StatusOK || !strings.Contains(string(r.body), `"name":"widgets"`) {
			t.Errorf("resources of %s: %d %s", v, r.code, r.body)
		}
		r = do(t, ts, "GET", "/openapi/v3/apis/stable.example.com/"+v, "", "")
		if r.code != http.StatusOK || !strings.Contains(string(r.body), "com.example.stable."+v+".Widget") {
			t.Errorf("OpenAPI of %s: %d %.300s", v, r.code, r.body)
		}
	}
	beta := string(do(t, ts, "GET", "/openapi/v3/apis/stable.example.com/v1beta1", "", "").body)
	if !strings.Contains(beta, `"count"`) {
		t.Errorf("v1beta1 OpenAPI has no spec.count")
	}
	r = send(t, ts.URL+"/apis", "GET", map[string]string{"Accept": "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"}, nil)
	if i, j := strings.Index(string(r.body), `"version":"v1"`), strings.Index(string(r.body), `"version":"v1beta1"`); i < 0 || j < i {
		t.Errorf("aggregated discovery, v1 first: %s", r.body)
	}
}

// TestVersionsUnstructured serves a run-time kind in two versions with
// strategy None, and with a conversion function.
func TestVersionsUnstructured(t *testing.T) {
	for _, tc := range []struct {
		name    string
		convert apiserver.ConvertFunc
		want    string
	}{
		{"None", nil, `"size":"L"`},
		{"function", func(obj *meta.Unstructured, to string) error {
			spec, _ := obj.Content["spec"].(map[string]any)
			if to == "stable.example.com/v2" {
				spec["bigness"], spec["size"] = spec["size"], nil
				delete(spec, "size")
			} else {
				spec["size"] = spec["bigness"]
				delete(spec, "bigness")
			}
			obj.APIVersion = to
			return nil
		}, `"bigness":"L"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := apiserver.Kind{Group: "stable.example.com", Kind: "Thing", Resource: "things", Namespaced: true,
				New: func() meta.Object { return &meta.Unstructured{} }, Convert: tc.convert,
				Versions: []apiserver.KindVersion{{Name: "v1", Storage: true}, {Name: "v2"}}}
			_, ts := startVersions(t, nil, k)
			r := do(t, ts, "POST", "/apis/stable.example.com/v1/namespaces/default/things", "application/json",
				`{"apiVersion":"stable.example.com/v1","kind":"Thing","metadata":{"name":"a"},"spec":{"size":"L"}}`)
			if r.code != http.StatusCreated {
				t.Fatalf("create: %d %s", r.code, r.body)
			}
			r = do(t, ts, "GET", "/apis/stable.example.com/v2/namespaces/default/things/a", "", "")
			if !strings.Contains(string(r.body), `"apiVersion":"stable.example.com/v2"`) || !strings.Contains(string(r.body), tc.want) {
				t.Errorf("GET v2: %s", r.body)
			}
			r = do(t, ts, "GET", "/apis/stable.example.com/v1/namespaces/default/things/a", "", "")
			if !strings.Contains(string(r.body), `"apiVersion":"stable.example.com/v1"`) || !strings.Contains(string(r.body), `"size":"L"`) {
				t.Errorf("GET v1: %s", r.body)
			}
		})
	}
}

// TestInstallVersions installs a run-time kind in one version, then
// replaces it with two, while serving: both are served, from the same
// objects.
func TestInstallVersions(t *testing.T) {
	srv, ts := startVersions(t, nil)
	one := apiserver.Kind{Group: "stable.example.com", Version: "v1", Kind: "Thing", Resource: "things", Namespaced: true,
		New: func() meta.Object { return &meta.Unstructured{} }}
	if err := srv.Install(one); err != nil {
		t.Fatal(err)
	}
	r := do(t, ts, "POST", "/apis/stable.example.com/v1/namespaces/default/things", "application/json",
		`{"apiVersion":"stable.example.com/v1","kind":"Thing","metadata":{"name":"a"},"spec":{"size":"L"}}`)
	if r.code != http.StatusCreated {
		t.Fatalf("create: %d %s", r.code, r.body)
	}
	two := one
	two.Version = ""
	two.Versions = []apiserver.KindVersion{{Name: "v1", Storage: true}, {Name: "v2alpha1", Deprecated: true, DeprecationWarning: "use v1"}}
	if err := srv.CheckKind(two); err != nil {
		t.Fatalf("CheckKind: %v", err)
	}
	if err := srv.Install(two); err != nil {
		t.Fatal(err)
	}
	r = do(t, ts, "GET", "/apis/stable.example.com/v2alpha1/namespaces/default/things/a", "", "")
	if r.code != http.StatusOK || !strings.Contains(string(r.body), `"apiVersion":"stable.example.com/v2alpha1"`) ||
		r.header.Get("Warning") != `299 - "use v1"` {
		t.Errorf("GET v2alpha1: %d %q %s", r.code, r.header.Get("Warning"), r.body)
	}
	if got := len(srv.Served()); got != 2 {
		t.Errorf("Served: %d resources, want 2", got)
	}
	if err := srv.Uninstall("stable.example.com", "things"); err != nil {
		t.Fatal(err)
	}
	if got := len(srv.Served()); got != 0 {
		t.Errorf("Served after Uninstall: %d resources", got)
	}
}

// TestVersionsLargeList lists, in v1beta1, more Widgets than a list
// writes in one piece: the streamed list is whole and in v1beta1.
func TestVersionsLargeList(t *testing.T) {
	_, ts := startVersions(t, nil, twoVersionKind("v1"))
	tags := `"` + strings.Repeat("t", 200) + `"`
	const n = 600
	for i := range n {
		r := do(t, ts, "POST", v1Path, "application/json",
			`{"metadata":{"name":"w`+itoa(int32(i))+`"},"spec":{"replicas":`+itoa(int32(i%7))+`,"tags":[`+tags+`]}}`)
		if r.code != http.StatusCreated {
			t.Fatalf("create: %d %s", r.code, r.body)
		}
	}
	for range 2 { // converting, then from the kept encodings
		r := do(t, ts, "GET", v1beta1Path, "", "")
		if r.code != http.StatusOK || len(r.body) < 256<<10 {
			t.Fatalf("list: %d, %d bytes", r.code, len(r.body))
		}
		var l struct {
			Items []widgetV1beta1 `json:"items"`
		}
		if err := json.Unmarshal(r.body, &l); err != nil || len(l.Items) != n {
			t.Fatalf("list: %v, %d items", err, len(l.Items))
		}
		for _, w := range l.Items {
			if w.APIVersion != "stable.example.com/v1beta1" || w.Spec.Count == nil {
				t.Fatalf("item %+v", w)
			}
		}
	}
}
