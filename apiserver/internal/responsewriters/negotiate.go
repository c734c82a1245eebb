package responsewriters

import (
	"reflect"

	"github.com/kapi-dev/kapi/codec"
)

// AcceptPlain accepts media types without a transformation (as=Table and
// friends) whose serializer can encode values of every given type, and
// refuses streaming-only entries.
func AcceptPlain(types ...reflect.Type) func(codec.MediaType, codec.Serializer) bool {
	return func(mt codec.MediaType, ser codec.Serializer) bool {
		return mt.Param("as") == "" && mt.Param("stream") == "" && SupportsAll(ser, types)
	}
}

// SupportsAll reports whether ser can encode values of every type.
func SupportsAll(ser codec.Serializer, types []reflect.Type) bool {
	for _, t := range types {
		if !codec.Supports(ser, t) {
			return false
		}
	}
	return true
}
