package cbor_test

import (
	"bytes"
	"fmt"

	"github.com/kapi-dev/kapi/codec/cbor"
	"github.com/kapi-dev/kapi/meta"
)

func Example() {
	s := cbor.Serializer{}
	var buf bytes.Buffer
	st := &meta.Status{TypeMeta: meta.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: meta.StatusSuccess}
	if err := s.Encode(&buf, st); err != nil {
		panic(err)
	}
	fmt.Printf("% x\n", buf.Bytes()[:3]) // the self-described CBOR tag

	var back meta.Status
	strict, err := s.Decode(buf.Bytes(), &back)
	fmt.Println(back.Kind, back.Status, strict, err)

	j, _ := cbor.ToJSON(buf.Bytes())
	fmt.Println(string(j))
	// Output:
	// d9 d9 f7
	// Status Success [] <nil>
	// {"apiVersion":"v1","kind":"Status","metadata":{},"status":"Success"}
}
