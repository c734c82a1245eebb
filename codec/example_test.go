package codec_test

import (
	"fmt"
	"os"

	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// The Accept header kubectl sends for "kubectl get", in preference order.
func ExampleParseAccept() {
	for _, a := range codec.ParseAccept("application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json") {
		fmt.Println(a.MediaType, a.Q)
	}
	// Output:
	// application/json;as=Table;g=meta.k8s.io;v=v1 1
	// application/json;as=Table;g=meta.k8s.io;v=v1beta1 1
	// application/json 1
}

// A list handler that can produce meta.k8s.io/v1 Tables vets each Accept
// entry; entries it cannot serve are skipped.
func ExampleRegistry_Negotiate() {
	r := codec.NewRegistry(codec.JSON{}, codec.YAML{})
	tables := func(mt codec.MediaType, _ codec.Serializer) bool {
		as := mt.Param("as")
		return as == "" || as == "Table" && mt.Param("g") == "meta.k8s.io" && mt.Param("v") == "v1"
	}

	s, mt, _ := r.Negotiate("application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/yaml", tables)
	fmt.Println(s.MediaType(), mt.Param("as") == "Table")

	_, _, err := r.Negotiate("application/vnd.kubernetes.protobuf", nil)
	fmt.Println(status.CodeOf(err), err)
	// Output:
	// application/yaml false
	// 406 only the following media types are accepted: application/json, application/yaml
}

// A request body's Content-Type picks the decoder; a missing one means
// JSON.
func ExampleRegistry_ForContentType() {
	r := codec.NewRegistry(codec.JSON{}, codec.YAML{})
	for _, ct := range []string{"", "application/json; charset=utf-8", "application/yaml", "text/plain"} {
		s, _, err := r.ForContentType(ct)
		if err != nil {
			fmt.Printf("%q: %d %s\n", ct, status.CodeOf(err), status.ReasonOf(err))
			continue
		}
		fmt.Printf("%q: %s\n", ct, s.MediaType())
	}
	// Output:
	// "": application/json
	// "application/json; charset=utf-8": application/json
	// "application/yaml": application/yaml
	// "text/plain": 415 UnsupportedMediaType
}

// Unknown and duplicate fields do not fail a decode: they come back as
// strict errors with their full paths, for field validation to judge.
func ExampleJSON_Decode() {
	var w struct {
		Metadata meta.ObjectMeta `json:"metadata"`
		Spec     struct {
			Color string `json:"color"`
		} `json:"spec"`
	}
	strict, err := codec.JSON{}.Decode([]byte(`{"metadata":{"name":"foo"},"spec":{"color":"blue","Color":"red","color":"green"}}`), &w)
	fmt.Println(w.Metadata.Name, w.Spec.Color, err)
	for _, e := range strict {
		fmt.Println(e)
	}
	// Output:
	// foo green <nil>
	// unknown field "spec.Color"
	// duplicate field "spec.color"
}

// An object is encoded once and framed as a watch event: one JSON object
// per line.
func ExampleJSON_AppendEvent() {
	j := codec.JSON{}
	obj := []byte("{\"kind\":\"Widget\",\"metadata\":{\"name\":\"foo\"}}\n")
	var buf []byte
	buf = j.AppendEvent(buf, meta.Added, obj)
	buf = j.AppendEvent(buf, meta.Modified, obj)
	os.Stdout.Write(buf)
	// Output:
	// {"type":"ADDED","object":{"kind":"Widget","metadata":{"name":"foo"}}}
	// {"type":"MODIFIED","object":{"kind":"Widget","metadata":{"name":"foo"}}}
}

// Encoding writes the bytes kube-apiserver writes: compact JSON, HTML
// characters escaped, a trailing newline.
func ExampleJSON_Encode() {
	_ = codec.JSON{}.Encode(os.Stdout, map[string]string{"note": "a<b & c>d"})
	// Output:
	// {"note":"a\u003cb \u0026 c\u003ed"}
}
