package crd_test

import (
	"bufio"
	"net/http"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/controllers/crd"
)

// thingsCRD has a v2, the storage version, with a field and a default
// v1 lacks, and a v1 with a default of its own; conversion is None.
const thingsCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: things.stable.example.com}
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: things, kind: Thing}
  versions:
  - name: v1
    served: true
    storage: false
    additionalPrinterColumns:
    - {name: A, type: string, jsonPath: .spec.a}
    - {name: Extra, type: string, jsonPath: .spec.extra}
    - {name: D1, type: string, jsonPath: .spec.d1}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              a: {type: string}
              d1: {type: string, default: d1}
  - name: v2
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              a: {type: string}
              extra: {type: string}
              d2: {type: string, default: d2}
`

// An object read in a version whose schema lacks some of its fields is
// pruned by that version's schema, as kube-apiserver reads a custom
// resource in another version than it is stored in: in gets, lists (in
// every encoding, and Tables) and watches alike. The read version's
// defaults are not added (the object has the storage version's), and a
// write in v1 stores what v2 knows of it and answers with that, read
// back in v1.
func TestReadInVersionLackingField(t *testing.T) {
	e := start(t)
	if err := crd.Create(ctx(t), e.srv, manifest(t, thingsCRD)); err != nil {
		t.Fatal(err)
	}
	const v1, v2 = "/apis/stable.example.com/v1/namespaces/default/things", "/apis/stable.example.com/v2/namespaces/default/things"
	code, body := e.do(t, "POST", v2, "application/json",
		`{"apiVersion":"stable.example.com/v2","kind":"Thing","metadata":{"name":"t1"},"spec":{"a":"xa","extra":"xextra"}}`)
	if code != http.StatusCreated || !strings.Contains(body, `"spec":{"a":"xa","d2":"d2","extra":"xextra"}`) {
		t.Fatalf("create in v2: %d %s", code, body)
	}
	const pruned = `"spec":{"a":"xa"}`
	watch, err := http.Get(e.ts.URL + v1 + "?watch=1")
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Body.Close()
	line, _ := bufio.NewReader(watch.Body).ReadString('\n')
	tests := []struct {
		name, path, accept, want string
	}{
		{"get in v2", v2 + "/t1", "", `"spec":{"a":"xa","d2":"d2","extra":"xextra"}`},
		{"get in v1", v1 + "/t1", "", pruned},
		{"list in v1", v1, "", pruned},
		{"list in v1 as YAML", v1, "application/yaml", "  spec:\n    a: xa\nkind: ThingList\n"},
		{"Table in v1", v1, "application/json;as=Table;v=v1;g=meta.k8s.io", `"cells":["t1","xa",null,null]`},
		{"Table in v1 with objects", v1 + "?includeObject=Object", "application/json;as=Table;v=v1;g=meta.k8s.io", pruned},
	}
	for _, tc := range tests {
		code, body := e.get(t, tc.path, tc.accept)
		if code != http.StatusOK || !strings.Contains(body, tc.want) {
			t.Errorf("%s: %d %s\nwant it to hold %q", tc.name, code, body, tc.want)
		}
	}
	if !strings.Contains(line, pruned) {
		t.Errorf("watch in v1: %s", line)
	}
	// Written in v1: v2 does not know d1, so neither the stored object
	// nor the answer has it.
	code, body = e.do(t, "POST", v1, "application/json",
		`{"apiVersion":"stable.example.com/v1","kind":"Thing","metadata":{"name":"t2"},"spec":{"a":"xa"}}`)
	if code != http.StatusCreated || !strings.Contains(body, pruned) {
		t.Errorf("create in v1: %d %s", code, body)
	}
	if code, body := e.get(t, v2+"/t2", ""); code != http.StatusOK || !strings.Contains(body, `"spec":{"a":"xa","d2":"d2"}`) {
		t.Errorf("get in v2 of an object written in v1: %d %s", code, body)
	}
}
