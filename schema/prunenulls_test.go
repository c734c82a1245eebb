package schema

import (
	"encoding/json"
	"testing"
)

// untypedNullsSchema holds fields without a type and maps of every kind,
// as the CustomResourceDefinition compared with kube-apiserver v1.37 did.
const untypedNullsSchema = `
type: object
properties:
  spec:
    type: object
    properties:
      ios: {x-kubernetes-int-or-string: true}
      pres: {x-kubernetes-preserve-unknown-fields: true}
      amap: {type: object, additionalProperties: {x-kubernetes-int-or-string: true}}
      smap: {type: object, additionalProperties: {type: string}}
      tmap: {type: object, additionalProperties: true}
      nmap: {type: object, additionalProperties: {type: string, nullable: true}}
      dmap: {type: object, additionalProperties: {type: string, default: d}}
      s: {type: string}
`

// TestNullsWithoutType checks the nulls kube-apiserver drops before
// defaulting: every non-nullable one without a default, whether or not its
// schema has a type and in map values too, but none below
// additionalProperties: true nor in preserved unknown fields.
func TestNullsWithoutType(t *testing.T) {
	s, err := FromOpenAPI([]byte(untypedNullsSchema))
	if err != nil {
		t.Fatal(err)
	}
	in := `{"spec":{"ios":null,"pres":{"a":null},"amap":{"a":null,"b":1},"smap":{"a":null,"b":"x"},` +
		`"tmap":{"a":null},"nmap":{"a":null},"dmap":{"a":null},"s":null}}`
	// What kube-apiserver stored for this create.
	defaulted := `{"spec":{"amap":{"b":1},"dmap":{"a":"d"},"nmap":{"a":null},"pres":{"a":null},"smap":{"b":"x"},"tmap":{"a":null}}}`
	// Conversion drops the same nulls but leaves dmap's to be defaulted.
	pruned := `{"spec":{"amap":{"b":1},"dmap":{"a":null},"nmap":{"a":null},"pres":{"a":null},"smap":{"b":"x"},"tmap":{"a":null}}}`
	for _, tc := range []struct {
		name string
		run  func(any) bool
		want string
	}{
		{"ApplyDefaults", s.ApplyDefaults, defaulted},
		{"PruneNulls", s.PruneNulls, pruned},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := mustJSON(t, in)
			changed := tc.run(x)
			b, _ := json.Marshal(x)
			if string(b) != tc.want || !changed {
				t.Errorf("got %s (changed %v), want %s (changed true)", b, changed, tc.want)
			}
		})
	}
}
