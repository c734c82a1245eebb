// Package protobuf is the Kubernetes protobuf serializer
// (application/vnd.kubernetes.protobuf), written against the bytes
// k8s.io/apimachinery's generated code produces, without code generation.
//
// # Envelope
//
// Every object, list and Status travels as the magic bytes "k8s\x00"
// followed by runtime.Unknown: typeMeta {apiVersion, kind} taken from the
// value's embedded meta.TypeMeta, raw (the value's own fields) and empty
// contentEncoding and contentType.
//
// # Fields
//
// A struct is encoded from its protobuf struct tags; only the field number
// is read from a tag, the wire type follows from the Go type. As generated
// Kubernetes code does, fields are written in field-number order;
// non-pointer scalars, strings and embedded messages always, even when
// zero; pointers only when not nil; []byte when not nil; slices and maps
// only when not empty, one entry per key in key order. meta.Time is
// meta/v1 Time {seconds, nanos} with second precision (empty when zero),
// and json.RawMessage is runtime.RawExtension {raw}. A struct with an
// exported field that has no tag (other than an embedded meta.TypeMeta)
// has no protobuf form: [Serializer.Supports] says so, and negotiation
// falls back to another media type.
//
// # Proxies
//
// A type whose Go form is not its wire form implements [Proxied]: it
// travels as another struct, its proxy, encoded from its own tags. That is
// how a schema kept as raw JSON travels as apiextensions' typed
// JSONSchemaProps, and a named []string as a message of items.
//
// How a type is encoded is worked out once, on first use, and kept in the
// [Serializer]; encoding and decoding then follow that plan.
//
// # Watch
//
// A watch stream (application/vnd.kubernetes.protobuf;stream=watch) is a
// sequence of frames, each a 4-byte big-endian length and a meta/v1
// WatchEvent {type, object: RawExtension{raw}} without an envelope, whose
// raw is the enveloped object: see [Serializer.AppendEvent].
package protobuf
