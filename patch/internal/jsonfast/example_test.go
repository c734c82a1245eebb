package jsonfast_test

import (
	"fmt"

	"github.com/kapi-dev/kapi/patch/internal/jsonfast"
)

// Integers that fit decode as int64, other numbers as float64; encoding
// sorts keys and escapes as json.Marshal does.
func ExampleDecode() {
	v, err := jsonfast.Decode([]byte(`{"b":[1,2.5],"a":"<x>"}`))
	if err != nil {
		panic(err)
	}
	m := v.(map[string]any)
	fmt.Printf("%T %T\n", m["b"].([]any)[0], m["b"].([]any)[1])
	out, _ := jsonfast.Encode(v)
	fmt.Println(string(out))
	_, err = jsonfast.Decode([]byte(`{"a":}`))
	fmt.Println(err)
	// Output:
	// int64 float64
	// {"a":"\u003cx\u003e","b":[1,2.5]}
	// invalid character '}' looking for beginning of value
}
