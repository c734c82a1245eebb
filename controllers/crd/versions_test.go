package crd_test

import (
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/controllers/crd"
	"github.com/kapi-dev/kapi/kinds/apiextensionsv1"
)

const twoVersionCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: crontabs.stable.example.com}
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: crontabs, kind: CronTab}
  versions:
  - name: v1beta1
    served: true
    storage: false
    deprecated: true
    deprecationWarning: "stable.example.com/v1beta1 CronTab is old; use v1"
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {cron: {type: string}}}
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {cronSpec: {type: string}}}
`

// converter is a conversion webhook renaming spec.cron (v1beta1) to
// spec.cronSpec (v1) and back.
func converter(calls *atomic.Int64) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var review struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Request    struct {
				UID               string           `json:"uid"`
				DesiredAPIVersion string           `json:"desiredAPIVersion"`
				Objects           []map[string]any `json:"objects"`
			} `json:"request"`
		}
		b, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(b, &review); err != nil || review.Kind != "ConversionReview" {
			http.Error(w, "bad review", http.StatusBadRequest)
			return
		}
		var out []map[string]any
		for _, o := range review.Request.Objects {
			spec, _ := o["spec"].(map[string]any)
			if spec == nil {
				spec = map[string]any{}
			}
			if review.Request.DesiredAPIVersion == "stable.example.com/v1" {
				if v, ok := spec["cron"]; ok {
					spec["cronSpec"] = v
					delete(spec, "cron")
				}
			} else if v, ok := spec["cronSpec"]; ok {
				spec["cron"] = v
				delete(spec, "cronSpec")
			}
			o["spec"] = spec
			o["apiVersion"] = review.Request.DesiredAPIVersion
			out = append(out, o)
		}
		_ = json.NewEncoder(w).Encode(map[string]any{
			"apiVersion": review.APIVersion, "kind": "ConversionReview",
			"response": map[string]any{"uid": review.Request.UID, "convertedObjects": out, "result": map[string]any{"status": "Success"}},
		})
	}
}

// A definition with two versions is served in both, stored in its
// storage version, converted by its webhook over HTTPS (trusting its
// caBundle), with its deprecated version's warning.
func TestWebhookConversion(t *testing.T) {
	var calls atomic.Int64
	hook := httptest.NewTLSServer(converter(&calls))
	defer hook.Close()
	e := start(t)
	d := manifest(t, twoVersionCRD)
	url := hook.URL + "/convert"
	d.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: "Webhook", Webhook: &apiextensionsv1.WebhookConversion{
		ConversionReviewVersions: []string{"v1"},
		ClientConfig: &apiextensionsv1.WebhookClientConfig{URL: &url,
			CABundle: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hook.Certificate().Raw})},
	}}
	if err := crd.Create(ctx(t), e.srv, d); err != nil {
		t.Fatal(err)
	}
	const beta = "/apis/stable.example.com/v1beta1/namespaces/default/crontabs"
	req, _ := http.NewRequest("POST", e.ts.URL+beta, strings.NewReader(`{"apiVersion":"stable.example.com/v1beta1","kind":"CronTab","metadata":{"name":"a"},"spec":{"cron":"* * * * *"}}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated || !strings.Contains(string(b), `"cron":"* * * * *"`) {
		t.Fatalf("create through v1beta1: %d %s", resp.StatusCode, b)
	}
	if w := resp.Header.Get("Warning"); !strings.Contains(w, "stable.example.com/v1beta1 CronTab is old; use v1") {
		t.Errorf("deprecation warning: %q", w)
	}
	if code, body := e.do(t, "GET", crontabs+"/a", "", ""); code != http.StatusOK ||
		!strings.Contains(body, `"apiVersion":"stable.example.com/v1"`) || !strings.Contains(body, `"cronSpec":"* * * * *"`) {
		t.Fatalf("read through v1: %d %s", code, body)
	}
	if calls.Load() == 0 {
		t.Fatal("the webhook was not called")
	}
	hook.Close()
	// Named as kube names the object it could not convert, in one
	// InternalError.
	code, body := e.do(t, "GET", beta+"/a", "", "")
	if code != http.StatusInternalServerError || !strings.Contains(body, `"message":"Internal error occurred: conversion webhook for stable.example.com/v1, Kind=CronTab failed: `) ||
		strings.Count(body, "Internal error occurred") != 1 {
		t.Fatalf("read with the webhook down: %d %s", code, body)
	}
}

// Strategy None changes only the apiVersion.
func TestNoneConversion(t *testing.T) {
	e := start(t)
	if err := crd.Create(ctx(t), e.srv, manifest(t, strings.ReplaceAll(twoVersionCRD, "cron: {type: string}", "cronSpec: {type: string}"))); err != nil {
		t.Fatal(err)
	}
	code, body := e.do(t, "POST", "/apis/stable.example.com/v1beta1/namespaces/default/crontabs", "application/json",
		`{"apiVersion":"stable.example.com/v1beta1","kind":"CronTab","metadata":{"name":"a"},"spec":{"cronSpec":"x"}}`)
	if code != http.StatusCreated {
		t.Fatalf("%d %s", code, body)
	}
	if code, body := e.do(t, "GET", crontabs+"/a", "", ""); code != http.StatusOK ||
		!strings.Contains(body, `"apiVersion":"stable.example.com/v1"`) || !strings.Contains(body, `"cronSpec":"x"`) {
		t.Fatalf("read through v1: %d %s", code, body)
	}
}

// status.storedVersions as kube-apiserver keeps it: the write that
// changes the storage version adds it (the answer has it), a version
// objects may be stored in cannot leave spec.versions, and a write to
// /status may set the list to anything (an empty one becomes the storage
// version), which the next write to the definition is held to.
func TestStoredVersions(t *testing.T) {
	e := start(t)
	d := manifest(t, strings.ReplaceAll(twoVersionCRD, "cron: {type: string}", "cronSpec: {type: string}"))
	if err := crd.Create(ctx(t), e.srv, d); err != nil {
		t.Fatal(err)
	}
	path := "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/" + d.Name
	missing := func(i int, v string) string {
		return `status.storedVersions[` + string(rune('0'+i)) + `]: Invalid value: \"` + v + `\": missing from spec.versions; ` + v +
			` was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in ` +
			v + ` and removes ` + v + ` from status.storedVersions`
	}
	tests := []struct {
		name, method, path, ctype, body string
		code                            int
		want                            string // storedVersions answered, or what the 422 says
	}{
		{"the storage version changes", "PATCH", path, "application/json-patch+json",
			`[{"op":"replace","path":"/spec/versions/0/storage","value":true},{"op":"replace","path":"/spec/versions/1/storage","value":false}]`, // v1beta1
			200, "v1,v1beta1"},
		{"the old storage version leaves spec.versions", "PATCH", path, "application/json-patch+json",
			`[{"op":"remove","path":"/spec/versions/1"}]`, 422, missing(0, "v1")},
		{"a write to the definition does not change the list", "PATCH", path, "application/merge-patch+json",
			`{"status":{"storedVersions":["v1beta1"]}}`, 200, "v1,v1beta1"},
		{"a migration drops the old version", "PATCH", path + "/status", "application/merge-patch+json",
			`{"status":{"storedVersions":["v1beta1"]}}`, 200, "v1beta1"},
		{"then it may leave spec.versions", "PATCH", path, "application/json-patch+json",
			`[{"op":"remove","path":"/spec/versions/1"}]`, 200, "v1beta1"},
		{"an empty list is the storage version", "PATCH", path + "/status", "application/merge-patch+json",
			`{"status":{"storedVersions":[]}}`, 200, "v1beta1"},
		{"a status write is not checked", "PATCH", path + "/status", "application/merge-patch+json",
			`{"status":{"storedVersions":["v9","v0"]}}`, 200, "v9,v0"},
		{"but the next write to the definition is", "PATCH", path, "application/merge-patch+json",
			`{"metadata":{"labels":{"a":"b"}}}`, 422, missing(0, "v9") + ", " + missing(1, "v0")},
		{"back to the storage version", "PATCH", path + "/status", "application/merge-patch+json",
			`{"status":{"storedVersions":["v1beta1"]}}`, 200, "v1beta1"},
		{"the scope stays", "PATCH", path, "application/merge-patch+json",
			`{"spec":{"scope":"Cluster"}}`, 422, `spec.scope: Invalid value: \"Cluster\": field is immutable`},
	}
	for _, tc := range tests {
		code, body := e.do(t, tc.method, tc.path, tc.ctype, tc.body)
		if code != tc.code {
			t.Fatalf("%s: %d %s", tc.name, code, body)
		}
		if code != http.StatusOK {
			if !strings.Contains(body, tc.want) {
				t.Errorf("%s: %s\nwant it to hold %s", tc.name, body, tc.want)
			}
			continue
		}
		var got apiextensionsv1.CustomResourceDefinition
		if err := json.Unmarshal([]byte(body), &got); err != nil {
			t.Fatal(err)
		}
		if sv := strings.Join(got.Status.StoredVersions, ","); sv != tc.want {
			t.Errorf("%s: storedVersions %s, want %s", tc.name, sv, tc.want)
		}
	}
	// The controller leaves the list as the last write left it.
	time.Sleep(50 * time.Millisecond)
	if sv := strings.Join(e.definition(t, d.Name).Status.StoredVersions, ","); sv != "v1beta1" {
		t.Errorf("storedVersions after a while: %s", sv)
	}
}

const gizmoCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gizmos.stable.example.com}
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: gizmos, kind: Gizmo}
  versions:
  - name: v1beta1
    served: true
    storage: false
    selectableFields: [{jsonPath: .spec.color}]
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer, maximum: 10}
              color: {type: string}
  - name: v1
    served: true
    storage: true
    selectableFields: [{jsonPath: .spec.shape}]
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer, default: 1}
              color: {type: string}
              shape: {type: string}
`

// A definition whose versions' schemas differ: each write is defaulted
// and validated with the schema of the version it is made in (a bound
// only in v1beta1, a default only in v1), and field selectors take the
// selectable fields of the version listed.
func TestVersionsValidatedPerVersion(t *testing.T) {
	e := start(t)
	if err := crd.Create(ctx(t), e.srv, manifest(t, gizmoCRD)); err != nil {
		t.Fatal(err)
	}
	const (
		beta = "/apis/stable.example.com/v1beta1/namespaces/default/gizmos"
		v1   = "/apis/stable.example.com/v1/namespaces/default/gizmos"
	)
	gizmo := func(v, name, spec string) string {
		return `{"apiVersion":"stable.example.com/` + v + `","kind":"Gizmo","metadata":{"name":"` + name + `"},"spec":` + spec + `}`
	}
	for _, tc := range []struct {
		name, method, path, body string
		code                     int
		want, notWant            string
	}{
		{"over v1beta1's bound through v1beta1", "POST", beta, gizmo("v1beta1", "x", `{"size":20}`), 422,
			`spec.size: Invalid value: 20: spec.size in body should be less than or equal to 10`, ""},
		{"over v1beta1's bound through v1", "POST", v1, gizmo("v1", "a", `{"size":20,"shape":"round"}`), 201, `"size":20`, ""},
		{"over v1beta1's bound by a merge patch through v1beta1", "PATCH", beta + "/a", `{"spec":{"size":11}}`, 422,
			`spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10`, ""},
		{"defaulted through v1", "POST", v1, gizmo("v1", "b", `{"color":"red"}`), 201, `"size":1`, ""},
		{"not defaulted through v1beta1", "POST", beta, gizmo("v1beta1", "c", `{"color":"red"}`), 201, `"color":"red"`, `"size"`},
		{"v1beta1's selectable field through v1beta1", "GET", beta + "?fieldSelector=spec.color%3Dred", "", 200, `"name":"b"`, `"name":"a"`},
		{"v1's selectable field through v1beta1", "GET", beta + "?fieldSelector=spec.shape%3Dround", "", 400, "field label not supported: spec.shape", ""},
		{"v1's selectable field through v1", "GET", v1 + "?fieldSelector=spec.shape%3Dround", "", 200, `"name":"a"`, `"name":"b"`},
		{"v1beta1's selectable field through v1", "GET", v1 + "?fieldSelector=spec.color%3Dred", "", 400, "field label not supported: spec.color", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ct := "application/json"
			if tc.method == "PATCH" {
				ct = "application/merge-patch+json"
			}
			code, body := e.do(t, tc.method, tc.path, ct, tc.body)
			if code != tc.code || !strings.Contains(body, tc.want) || (tc.notWant != "" && strings.Contains(body, tc.notWant)) {
				t.Errorf("%d %s, want %d with %q", code, body, tc.code, tc.want)
			}
		})
	}
}
