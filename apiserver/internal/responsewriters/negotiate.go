package responsewriters

import (
	"reflect"

	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/status"
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

// Negotiate picks the serializer of an answer holding values of every
// given type (an object, or a list and its items' type, or a Status):
// the first media type the Accept header allows whose serializer can
// encode them all, without a transformation. None is a 406 Status naming
// the media types that could.
func Negotiate(codecs *codec.Registry, accept string, types ...reflect.Type) (codec.Serializer, codec.MediaType, error) {
	ser, mt, err := codecs.Negotiate(accept, AcceptPlain(types...))
	if err != nil {
		return nil, mt, status.NotAcceptable(MediaTypesFor(codecs, types...))
	}
	return ser, mt, nil
}

// MediaTypesFor lists the registered media types that can carry values of
// every given type.
func MediaTypesFor(codecs *codec.Registry, types ...reflect.Type) []string {
	var out []string
	for _, mt := range codecs.MediaTypes() {
		if ser, ok := codecs.Lookup(mt); ok && SupportsAll(ser, types) {
			out = append(out, mt)
		}
	}
	return out
}
