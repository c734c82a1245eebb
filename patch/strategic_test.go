package patch_test

import (
	"reflect"
	"testing"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/patch"
	"github.com/kapi-dev/kapi/schema"
)

// smpObject exercises every strategy a schema can declare.
type smpObject struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            smpSpec `json:"spec,omitempty"`
}

type smpSpec struct {
	Containers []smpContainer     `json:"containers,omitempty" patchStrategy:"merge" patchMergeKey:"name"`
	Others     []smpContainer     `json:"others,omitempty"`
	Tags       []string           `json:"tags,omitempty" patchStrategy:"merge"`
	Args       []string           `json:"args,omitempty"`
	Selector   map[string]string  `json:"selector,omitempty" patchStrategy:"replace"`
	Labels     map[string]string  `json:"labels,omitempty"`
	Volume     *smpVolume         `json:"volume,omitempty" patchStrategy:"retainKeys"`
	Matrix     [][]string         `json:"matrix,omitempty" patchStrategy:"merge"`
	Odd        []smpContainer     `json:"odd,omitempty"`
	Extra      map[string]smpPort `json:"extra,omitempty"`
}

type smpContainer struct {
	Name  string    `json:"name"`
	Image string    `json:"image,omitempty"`
	Env   []smpEnv  `json:"env,omitempty" patchStrategy:"merge" patchMergeKey:"name"`
	Ports []smpPort `json:"ports,omitempty" patchStrategy:"merge" patchMergeKey:"containerPort"`
}

type smpEnv struct {
	Name  string `json:"name"`
	Value string `json:"value,omitempty"`
}

type smpPort struct {
	ContainerPort int32  `json:"containerPort"`
	Protocol      string `json:"protocol,omitempty"`
}

type smpVolume struct {
	Name     string    `json:"name,omitempty"`
	HostPath *string   `json:"hostPath,omitempty"`
	EmptyDir *struct{} `json:"emptyDir,omitempty"`
}

func smpSchema(t testing.TB) *schema.Schema {
	t.Helper()
	s, err := schema.FromType(reflect.TypeFor[smpObject]())
	if err != nil {
		t.Fatal(err)
	}
	// A strategy the library does not know replaces the list.
	s.Lookup("spec", "odd").XPatchStrategy = "sometimes"
	return s
}

// smpCases are strategic merge patches of an smpObject and their results,
// checked against k8s.io/apimachinery's StrategicMergeMapPatch.
var smpCases = []struct{ name, doc, patch, want string }{
	{"merge list by key, patch items first",
		`{"spec":{"containers":[{"name":"a","image":"a:1"},{"name":"b","image":"b:1"}]}}`,
		`{"spec":{"containers":[{"name":"b","image":"b:2"},{"name":"c","image":"c:1"}]}}`,
		`{"spec":{"containers":[{"name":"a","image":"a:1"},{"name":"b","image":"b:2"},{"name":"c","image":"c:1"}]}}`},
	{"nested merge lists",
		`{"spec":{"containers":[{"name":"a","env":[{"name":"X","value":"1"},{"name":"Y","value":"2"}],"ports":[{"containerPort":80}]}]}}`,
		`{"spec":{"containers":[{"name":"a","env":[{"name":"Y","value":"3"}],"ports":[{"containerPort":80,"protocol":"UDP"},{"containerPort":443}]}]}}`,
		`{"spec":{"containers":[{"name":"a","env":[{"name":"X","value":"1"},{"name":"Y","value":"3"}],"ports":[{"containerPort":80,"protocol":"UDP"},{"containerPort":443}]}]}}`},
	{"delete a list element",
		`{"spec":{"containers":[{"name":"a"},{"name":"b"},{"name":"c"}]}}`,
		`{"spec":{"containers":[{"$patch":"delete","name":"b"}]}}`,
		`{"spec":{"containers":[{"name":"a"},{"name":"c"}]}}`},
	{"replace a merge list",
		`{"spec":{"containers":[{"name":"a"},{"name":"b"}]}}`,
		`{"spec":{"containers":[{"name":"c","image":"c"},{"$patch":"replace"}]}}`,
		`{"spec":{"containers":[{"name":"c","image":"c"}]}}`},
	{"lists without a strategy are replaced",
		`{"spec":{"others":[{"name":"a"},{"name":"b"}],"args":["x","y"]}}`,
		`{"spec":{"others":[{"name":"c"}],"args":["z"]}}`,
		`{"spec":{"others":[{"name":"c"}],"args":["z"]}}`},
	{"unknown strategy replaces",
		`{"spec":{"odd":[{"name":"a"}]}}`,
		`{"spec":{"odd":[{"name":"b"}]}}`,
		`{"spec":{"odd":[{"name":"b"}]}}`},
	{"primitive merge list is a set union",
		`{"spec":{"tags":["a","b"]}}`,
		`{"spec":{"tags":["b","c"]}}`,
		`{"spec":{"tags":["a","b","c"]}}`},
	{"delete from a primitive list",
		`{"spec":{"tags":["a","b","c"]}}`,
		`{"spec":{"$deleteFromPrimitiveList/tags":["b","x"]}}`,
		`{"spec":{"tags":["a","c"]}}`},
	{"set element order of a merge list",
		`{"spec":{"containers":[{"name":"a"},{"name":"b"},{"name":"c"}]}}`,
		`{"spec":{"$setElementOrder/containers":[{"name":"c"},{"name":"a"},{"name":"b"}],"containers":[{"name":"a","image":"a:2"}]}}`,
		`{"spec":{"containers":[{"name":"c"},{"name":"a","image":"a:2"},{"name":"b"}]}}`},
	{"set element order of a primitive list",
		`{"spec":{"tags":["a","b","c"]}}`,
		`{"spec":{"$setElementOrder/tags":["c","d","a","b"],"tags":["d"]}}`,
		`{"spec":{"tags":["c","d","a","b"]}}`},
	{"replace an object",
		`{"spec":{"volume":{"name":"v","hostPath":"/x"}}}`,
		`{"spec":{"volume":{"$patch":"replace","emptyDir":{}}}}`,
		`{"spec":{"volume":{"emptyDir":{}}}}`},
	{"delete an object's content",
		`{"spec":{"labels":{"a":"1"}}}`,
		`{"spec":{"labels":{"$patch":"delete"}}}`,
		`{"spec":{"labels":{}}}`},
	{"retainKeys clears the other keys",
		`{"spec":{"volume":{"name":"v","hostPath":"/x"}}}`,
		`{"spec":{"volume":{"$retainKeys":["name","emptyDir"],"emptyDir":{}}}}`,
		`{"spec":{"volume":{"name":"v","emptyDir":{}}}}`},
	{"replace strategy on a map",
		`{"spec":{"selector":{"a":"1","b":"2"},"labels":{"a":"1","b":"2"}}}`,
		`{"spec":{"selector":{"c":"3"},"labels":{"c":"3"}}}`,
		`{"spec":{"selector":{"c":"3"},"labels":{"a":"1","b":"2","c":"3"}}}`},
	{"null deletes, nulls in new values dropped",
		`{"spec":{"labels":{"a":"1"},"args":["x"]}}`,
		`{"spec":{"labels":{"a":null},"args":null,"volume":{"name":"v","hostPath":null}}}`,
		`{"spec":{"labels":{},"volume":{"name":"v"}}}`},
	{"directives dropped from new values",
		`{"spec":{}}`,
		`{"spec":{"containers":[{"name":"a","env":[{"name":"X"},{"$patch":"delete","name":"Y"}]}]}}`,
		`{"spec":{"containers":[{"name":"a","env":[{"name":"X"}]}]}}`},
	{"type change replaces",
		`{"spec":{"labels":{"a":"1"}}}`,
		`{"spec":{"labels":"none"}}`,
		`{"spec":{"labels":"none"}}`},
	// New items go before the live ones unless the live order places
	// them: kube's mergeSortedSlice.
	{"metadata lists merge by key",
		`{"metadata":{"finalizers":["a"],"ownerReferences":[{"uid":"1","name":"x","kind":"K","apiVersion":"v1"}]}}`,
		`{"metadata":{"finalizers":["b"],"ownerReferences":[{"uid":"2","name":"y","kind":"K","apiVersion":"v1"}]}}`,
		`{"metadata":{"finalizers":["b","a"],"ownerReferences":[{"uid":"2","name":"y","kind":"K","apiVersion":"v1"},{"uid":"1","name":"x","kind":"K","apiVersion":"v1"}]}}`},
	// kube's struct-based lookup fails here with a 500 ("merging an
	// object in json but data type is not struct"); the schema knows
	// the value type, so the maps merge.
	{"maps of objects merge",
		`{"spec":{"extra":{"a":{"containerPort":1,"protocol":"TCP"}}}}`,
		`{"spec":{"extra":{"a":{"containerPort":2},"b":{"containerPort":3}}}}`,
		`{"spec":{"extra":{"a":{"containerPort":2,"protocol":"TCP"},"b":{"containerPort":3}}}}`},
	{"null patch changes nothing", `{"spec":{"tags":["a"]}}`, `null`, `{"spec":{"tags":["a"]}}`},
}

func TestStrategicMergePatch(t *testing.T) {
	s := smpSchema(t)
	tests := smpCases
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := patch.StrategicMergePatch([]byte(tc.doc), []byte(tc.patch), s)
			if err != nil {
				t.Fatal(err)
			}
			jsonEqual(t, got, tc.want)
		})
	}
}

func TestStrategicMergePatchWidget(t *testing.T) {
	s := widgetSchema(t)
	doc := `{"spec":{"ports":[{"name":"http","port":80},{"name":"https","port":443}],"tags":["a","b"]},"status":{"conditions":[{"type":"Ready","status":"True"},{"type":"Synced","status":"True"}]}}`
	// ports carry patchStrategy merge; tags and conditions only a list
	// type, which strategic merge patch ignores: they are replaced.
	p := `{"spec":{"ports":[{"name":"http","port":8080}],"tags":["c"]},"status":{"conditions":[{"type":"Ready","status":"False"}]}}`
	got, err := patch.StrategicMergePatch([]byte(doc), []byte(p), s)
	if err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, got, `{"spec":{"ports":[{"name":"http","port":8080},{"name":"https","port":443}],"tags":["c"]},"status":{"conditions":[{"type":"Ready","status":"False"}]}}`)
}

func TestStrategicMergePatchWithoutSchema(t *testing.T) {
	got, err := patch.StrategicMergePatch([]byte(`{"a":{"b":1,"l":[1,2]}}`), []byte(`{"a":{"c":2,"l":[3]}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, got, `{"a":{"b":1,"c":2,"l":[3]}}`)
}

func TestStrategicMergePatchErrors(t *testing.T) {
	s := smpSchema(t)
	const doc = `{"spec":{"containers":[{"name":"a"}],"tags":["a"],"matrix":[],"volume":{"name":"v"}}}`
	tests := []struct {
		name, patch string
		code        int32
		reason      meta.StatusReason
		msg         string
	}{
		{"not JSON", `{"spec":`, 400, meta.StatusReasonBadRequest, "unexpected end of JSON input"},
		{"not an object", `[{"spec":{}}]`, 400, meta.StatusReasonBadRequest, "json: cannot unmarshal array into Go value of type map[string]interface {}"},
		{"retainKeys lists too little", `{"spec":{"volume":{"$retainKeys":["name"],"hostPath":"/x"}}}`, 400, meta.StatusReasonBadRequest, "invalid patch format of retainKeys"},
		{"retainKeys not a list", `{"spec":{"volume":{"$retainKeys":"name"}}}`, 400, meta.StatusReasonBadRequest, "invalid patch format of retainKeys"},
		{"deletion list without a field", `{"spec":{"$deleteFromPrimitiveList":["a"]}}`, 400, meta.StatusReasonBadRequest, "invalid patch format of primitive list"},
		{"order list without a field", `{"spec":{"$setElementOrderX":["a"]}}`, 400, meta.StatusReasonBadRequest, "invalid patch format of setElementOrder list"},
		{"order list out of order", `{"spec":{"$setElementOrder/tags":["b","a"],"tags":["a","b"]}}`, 500, meta.StatusReasonUnknown, "The order in patch list:\n[a b]\n doesn't match $setElementOrder list:\n[b a]\n"},
		// kube's struct-based lookup fails earlier on [][]T fields with a
		// 500 "unexpected slice of slice"; its OpenAPI-based lookup, which
		// this follows, reaches ErrNoListOfLists.
		{"list of lists", `{"spec":{"matrix":[["a"]]}}`, 422, meta.StatusReasonInvalid, "the server rejected our request due to an error in our request"},
		{"missing merge key", `{"spec":{"containers":[{"image":"x"}]}}`, 500, meta.StatusReasonUnknown, "map: map[image:x] does not contain declared merge key: name"},
		{"merge directive in a list", `{"spec":{"containers":[{"$patch":"merge","name":"a"}]}}`, 500, meta.StatusReasonUnknown, "merging lists cannot yet be specified in the patch"},
		{"merge directive in an object", `{"spec":{"volume":{"$patch":"merge"}}}`, 500, meta.StatusReasonUnknown, "unknown patch type: merge in map: map[$patch:merge]"},
		{"mixed element types", `{"spec":{"tags":[1]}}`, 500, meta.StatusReasonUnknown, "list element types are not identical: [[a] [1]]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := patch.StrategicMergePatch([]byte(doc), []byte(tc.patch), s)
			wantStatus(t, err, tc.code, tc.reason, tc.msg)
		})
	}
}

func TestStrategicMergePatchUnsupported(t *testing.T) {
	p, err := patch.New(patch.Config{Schema: widgetSchema(t), Group: "stable.example.com", Version: "v1", Kind: "Widget", NoStrategicMerge: true})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Patch("application/strategic-merge-patch+json; charset=utf-8", []byte(`{}`), []byte(`{}`))
	wantStatus(t, err, 415, meta.StatusReasonUnsupportedMediaType,
		"the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/apply-patch+cbor")
	if _, err := p.Patch("application/merge-patch+json; charset=utf-8", []byte(`{"a":1}`), []byte(`{"b":2}`)); err != nil {
		t.Errorf("merge patch: %v", err)
	}
}
