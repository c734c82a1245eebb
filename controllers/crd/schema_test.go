package crd_test

import (
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kapi-dev/kapi/controllers/crd"
	"github.com/kapi-dev/kapi/meta"
)

// The schema of TestJunctorsEnforced: value validations on spec, on a
// field and on items, and restrictions of metadata.name and generateName.
const junctorsCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: backups.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: backups, singular: backup, kind: Backup}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          metadata:
            type: object
            properties:
              name: {type: string, maxLength: 10, pattern: '^b'}
              generateName: {type: string, pattern: '^b'}
          spec:
            type: object
            properties:
              bucket: {type: string}
              volume: {type: string}
              schedule: {type: string, not: {enum: [never]}}
              keep: {type: integer}
              hosts:
                type: array
                items: {type: string, anyOf: [{pattern: '^[a-z]+$'}, {maxLength: 1}]}
            oneOf:
            - required: [bucket]
            - required: [volume]
            anyOf:
            - required: [keep]
            - required: [schedule]
`

const backups = "/apis/stable.example.com/v1/namespaces/default/backups"

// TestJunctorsEnforced: writes are checked against allOf, anyOf, oneOf
// and not, and against the schema's metadata.name limits, with
// kube-apiserver's causes.
func TestJunctorsEnforced(t *testing.T) {
	e := start(t)
	if err := crd.Create(ctx(t), e.srv, manifest(t, junctorsCRD)); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, meta, spec string
		want             []string // the causes, "field: message", sorted
	}{
		{"valid", `{"name":"b1"}`, `{"bucket":"x","keep":3,"hosts":["abc","1"]}`, nil},
		{"oneOf none", `{"name":"b2"}`, `{"keep":3}`, []string{
			`<nil>: Invalid value: "": "spec" must validate one and only one schema (oneOf). Found none valid`,
			`spec.bucket: Required value`}},
		{"oneOf both", `{"name":"b3"}`, `{"bucket":"x","volume":"y","keep":3}`, []string{
			`<nil>: Invalid value: "": "spec" must validate one and only one schema (oneOf). Found 2 valid alternatives`}},
		{"anyOf none", `{"name":"b4"}`, `{"bucket":"x"}`, []string{
			`<nil>: Invalid value: "": "spec" must validate at least one schema (anyOf)`,
			`spec.keep: Required value`}},
		{"not", `{"name":"b5"}`, `{"bucket":"x","schedule":"never"}`, []string{
			`<nil>: Invalid value: "": "spec.schedule" must not validate the schema (not)`}},
		{"items", `{"name":"b6"}`, `{"bucket":"x","keep":1,"hosts":["a1b"]}`, []string{
			`<nil>: Invalid value: "": "spec.hosts[0]" must validate at least one schema (anyOf)`,
			`spec.hosts[0]: Invalid value: "a1b": spec.hosts[0] in body should match '^[a-z]+$'`}},
		{"name too long", `{"name":"b-very-long-name"}`, `{"bucket":"x","keep":1}`, []string{
			`metadata.name: Too long: may not be more than 10 bytes`}},
		{"name pattern", `{"name":"a1"}`, `{"bucket":"x","keep":1}`, []string{
			`metadata.name: Invalid value: "a1": metadata.name in body should match '^b'`}},
		{"generateName pattern", `{"generateName":"a-"}`, `{"bucket":"x","keep":1}`, []string{
			`metadata.generateName: Invalid value: "a-": metadata.generateName in body should match '^b'`,
			`metadata.name: Invalid value: "`}},
		{"generateName valid", `{"generateName":"b-"}`, `{"bucket":"x","keep":1}`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body := `{"apiVersion":"stable.example.com/v1","kind":"Backup","metadata":` + tc.meta + `,"spec":` + tc.spec + `}`
			code, out := e.do(t, "POST", backups, "application/json", body)
			if tc.want == nil {
				if code != http.StatusCreated {
					t.Fatalf("%d %s", code, out)
				}
				return
			}
			var st meta.Status
			if code != http.StatusUnprocessableEntity || json.Unmarshal([]byte(out), &st) != nil || st.Details == nil {
				t.Fatalf("%d %s", code, out)
			}
			var got []string
			for _, c := range st.Details.Causes {
				got = append(got, c.Field+": "+c.Message)
			}
			sort.Strings(got)
			if len(got) != len(tc.want) {
				t.Fatalf("causes\n%q\nwant\n%q", got, tc.want)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tc.want[i]) {
					t.Errorf("cause %q, want %q", got[i], tc.want[i])
				}
			}
		})
	}
}

// TestJunctorDefinitions: value validations are accepted in a
// definition's schema with kube-apiserver's restrictions, and refused
// with its messages and paths.
func TestJunctorDefinitions(t *testing.T) {
	// One version: kube-apiserver reports its schema's problems as those
	// of the schema every version shares, at spec.validation.
	const p = "spec.validation.openAPIV3Schema"
	tests := []struct {
		name, schema string
		want         []string // nil: accepted
	}{
		{"junctors", `{"type":"object","properties":{"spec":{"type":"object","properties":{"a":{"type":"string"}},
			"anyOf":[{"required":["a"]}],"oneOf":[{"properties":{"a":{"maxLength":3}}}],"allOf":[{"not":{"required":["a"]}}]}}}`, nil},
		{"int-or-string first in allOf", `{"type":"object","properties":{"p":{"x-kubernetes-int-or-string":true,
			"allOf":[{"anyOf":[{"type":"integer"},{"type":"string"}]},{"pattern":"^[0-9]+%?$"}]}}}`, nil},
		{"metadata name", `{"type":"object","properties":{"metadata":{"type":"object","properties":{"name":{"type":"string","maxLength":5}}}}}`, nil},
		{"type in oneOf", `{"type":"object","properties":{"a":{"type":"object","oneOf":[{"type":"object"}]}}}`,
			[]string{p + ".properties[a].oneOf[0].type: Forbidden: must be empty to be structural"}},
		{"default and nullable in allOf", `{"type":"object","allOf":[{"default":{},"nullable":true}]}`,
			[]string{p + ".allOf[0].default: Forbidden: must be undefined to be structural", p + ".allOf[0].nullable: Forbidden: must be false to be structural"}},
		{"additionalProperties in not", `{"type":"object","not":{"additionalProperties":{}}}`,
			[]string{p + ".not.additionalProperties: Forbidden: must be undefined to be structural"}},
		{"metadata in anyOf", `{"type":"object","anyOf":[{"properties":{"metadata":{}}}]}`,
			[]string{p + ".anyOf[0].properties[metadata]: Forbidden: must not be specified in a nested context",
				p + ".properties[metadata]: Required value: because it is defined in " + p + ".anyOf[0].properties[metadata]"}},
		{"property not specified", `{"type":"object","properties":{"spec":{"type":"object"}},"anyOf":[{"properties":{"spec":{"properties":{"b":{"minLength":1}}}}}]}`,
			[]string{p + ".properties[spec].properties[b]: Required value: because it is defined in " + p + ".anyOf[0].properties[spec].properties[b]"}},
		{"items not specified", `{"type":"object","properties":{"a":{"type":"string"}},"oneOf":[{"properties":{"a":{"items":{"maxLength":1}}}}]}`,
			[]string{p + ".properties[a].items: Required value: because it is defined in " + p + ".oneOf[0].properties[a].items"}},
		{"property not specified, nested junctor", `{"type":"object","not":{"allOf":[{"properties":{"x":{}}}]}}`,
			[]string{p + ".properties[x]: Required value: because it is defined in " + p + ".not.allOf[0].properties[x]"}},
		{"metadata labels", `{"type":"object","properties":{"metadata":{"type":"object","properties":{"labels":{"type":"object"}}}}}`,
			[]string{p + ".properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified"}},
	}
	e := start(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := manifest(t, junctorsCRD)
			d.Spec.Versions[0].Schema.OpenAPIV3Schema = []byte(tc.schema)
			b, _ := json.Marshal(d)
			code, body := e.do(t, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions?dryRun=All", "application/json", string(b))
			if tc.want == nil {
				if code != http.StatusCreated {
					t.Fatalf("%d %s", code, body)
				}
				return
			}
			var st meta.Status
			if code != http.StatusUnprocessableEntity || json.Unmarshal([]byte(body), &st) != nil || st.Details == nil {
				t.Fatalf("%d %s", code, body)
			}
			var got []string
			for _, c := range st.Details.Causes {
				got = append(got, c.Field+": "+c.Message)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("causes (-want +got):\n%s", diff)
			}
		})
	}
}
