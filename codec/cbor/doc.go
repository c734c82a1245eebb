// Package cbor is the application/cbor serializer: CBOR (RFC 8949) written
// and read as kube-apiserver does, so that client-go with its CBOR feature
// gates enabled talks to kapi unchanged.
//
// Every encoded object starts with the self-described CBOR tag (55799,
// bytes d9 d9 f7). Map keys are sorted in the core deterministic order,
// Go strings and field names travel as byte strings, floats take their
// shortest exact width, []byte values are tagged for later base64, times
// are RFC 3339 strings and the zero time is null: the options
// k8s.io/apimachinery's CBOR serializer configures. Values whose type has
// only a JSON encoding (MarshalJSON) are transcoded from that JSON.
//
// Decoding rejects what kube-apiserver rejects (duplicate map keys,
// invalid UTF-8 in text strings, NaN and infinities, big integers, simple
// values other than true, false and null) and then goes through the JSON
// decoder, so unknown fields come back as strict errors with their full
// paths, exactly as they do for JSON bodies. [ToJSON] exposes that
// conversion for apply patches sent as application/apply-patch+cbor.
//
// Watch streams are application/cbor-seq: a plain concatenation of
// self-described WatchEvent maps, each embedding the already encoded
// object.
package cbor
