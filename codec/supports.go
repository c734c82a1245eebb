package codec

import "reflect"

// Selective is implemented by serializers that can only encode some Go
// types, such as Kubernetes protobuf, which needs protobuf struct tags.
// Negotiation consults it with a kind's type so that a client asking for
// such a media type falls back to another acceptable one, or gets a 406.
type Selective interface {
	// Supports reports whether values of type t (a struct or a pointer to
	// one) can be encoded and decoded.
	Supports(t reflect.Type) bool
}

// Supports reports whether s can encode and decode values of type t:
// true unless s is [Selective] and refuses t.
func Supports(s Serializer, t reflect.Type) bool {
	sel, ok := s.(Selective)
	return !ok || sel.Supports(t)
}
