package codec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"unicode/utf8"

	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/kapi-dev/kapi/fieldvalidation"
	"github.com/kapi-dev/kapi/meta"
)

// Media types kapi serves.
const (
	MediaTypeJSON = "application/json"
	MediaTypeYAML = "application/yaml"
)

// Serializer encodes and decodes objects in one media type.
type Serializer interface {
	// MediaType is the type this serializer reads and writes.
	MediaType() string
	// Encode writes v.
	Encode(w io.Writer, v any) error
	// Decode reads data into v. Unknown and duplicate fields do not fail
	// the decode; they come back as strict errors, each naming the field's
	// full path, for field validation to judge. err is a malformed body or
	// a value of the wrong type.
	Decode(data []byte, v any) (strict []error, err error)
}

// WatchEncoder is implemented by serializers that can frame watch streams.
type WatchEncoder interface {
	// AppendEvent appends one framed watch event of the given type whose
	// object is already encoded by the same serializer.
	AppendEvent(dst []byte, eventType string, object []byte) []byte
	// StreamMediaType is the Content-Type of a watch response.
	StreamMediaType() string
}

// JSON is the application/json serializer.
type JSON struct{}

var (
	_ Serializer   = JSON{}
	_ WatchEncoder = JSON{}
)

// MediaType returns application/json.
func (JSON) MediaType() string { return MediaTypeJSON }

// StreamMediaType returns application/json: watch events are
// newline-delimited JSON objects.
func (JSON) StreamMediaType() string { return MediaTypeJSON }

// Encode writes v as compact JSON followed by a newline, with <, > and &
// in strings escaped as \u003c, \u003e and \u0026: the bytes
// kube-apiserver's serializer (an encoding/json Encoder with its defaults)
// writes.
func (JSON) Encode(w io.Writer, v any) error {
	return json.NewEncoder(w).Encode(v)
}

// Decode reads JSON case-sensitively, keeping integers in interface values
// as int64.
func (JSON) Decode(data []byte, v any) ([]error, error) {
	return fieldvalidation.DecodeJSON(data, v)
}

// DecodeTrusted reads JSON into v as Decode does, without looking for
// unknown or duplicate fields: for values the server wrote itself, whose
// strict errors nobody reads, it spares the bookkeeping of every key.
func (JSON) DecodeTrusted(data []byte, v any) error {
	return kjson.UnmarshalCaseSensitivePreserveInts(data, v)
}

// AppendEvent appends {"type":T,"object":O} and a newline.
func (JSON) AppendEvent(dst []byte, eventType string, object []byte) []byte {
	dst = append(dst, `{"type":"`...)
	dst = append(dst, eventType...)
	dst = append(dst, `","object":`...)
	dst = append(dst, bytes.TrimRight(object, "\n")...)
	return append(dst, "}\n"...)
}

// YAML is the application/yaml serializer. Watch streams are not offered
// in YAML, as kube-apiserver does not offer them.
type YAML struct{}

var _ Serializer = YAML{}

// MediaType returns application/yaml.
func (YAML) MediaType() string { return MediaTypeYAML }

// Encode writes v as YAML.
func (YAML) Encode(w io.Writer, v any) error {
	j, err := json.Marshal(v)
	if err != nil {
		return err
	}
	j = escapeForYAML(j)
	if jsonDepth(j) > MaxYAMLBlockDepth {
		// Block style indents every level further: a deep object would
		// render at a size quadratic in its own. JSON is YAML, and its
		// size is the object's.
		_, err = w.Write(append(j, '\n'))
		return err
	}
	y, err := yaml.JSONToYAML(j)
	if err != nil {
		return err
	}
	_, err = w.Write(y)
	return err
}

// Decode reads YAML (or JSON, which is YAML). Duplicate keys are strict
// errors, as they are for JSON.
func (YAML) Decode(data []byte, v any) ([]error, error) {
	if IsJSON(data) {
		return fieldvalidation.DecodeJSON(data, v)
	}
	if err := CheckYAMLCost(data); err != nil {
		return nil, fmt.Errorf("error converting YAML to JSON: %w", err)
	}
	return fieldvalidation.DecodeYAML(data, v)
}

// ListWriter is implemented by serializers that can write a list from the
// encodings of its items, so that a server that keeps each object's
// encoding does not encode the objects again for every list.
type ListWriter interface {
	// ListItem returns the part of an object's encoding (what Encode
	// wrote for it) that a list carries for the object. It may be a part
	// of encoded.
	ListItem(encoded []byte) ([]byte, error)
	// AppendList appends the encoding of l, whose Items are ignored, with
	// items (each from ListItem) as its items: what Encode writes for l
	// holding the items' objects.
	AppendList(dst []byte, l *meta.List, items [][]byte) ([]byte, error)
	// ListFrame returns what the encoding of l, whose Items are ignored,
	// holds before its items and after them, for n items that take size
	// bytes once framed (the sum of their ListItemSize). head, each item
	// as AppendListItem appends it, and tail are, in that order, what
	// AppendList writes: a list can be written as it is made, its size
	// known before its first item.
	ListFrame(l *meta.List, n, size int) (head, tail []byte, err error)
	// AppendListItem appends an item (from ListItem) as the list holds
	// it.
	AppendListItem(dst, item []byte) []byte
	// ListItemSize is how many bytes AppendListItem appends for an item
	// of n bytes.
	ListItemSize(n int) int
}

// escapeForYAML escapes, in JSON text, the characters a YAML stream may
// not hold raw (DEL, the C1 controls, U+FEFF, U+FFFE, U+FFFF), which JSON
// strings may: JSON is read as YAML to be written in block style, and a
// string holding one once made that fail. They can only be inside
// strings, where \u escapes mean the same.
func escapeForYAML(j []byte) []byte {
	if !bytes.ContainsFunc(j, notYAMLPrintable) {
		return j
	}
	out := make([]byte, 0, len(j)+16)
	for _, r := range string(j) {
		if notYAMLPrintable(r) {
			out = fmt.Appendf(out, `\u%04x`, r)
			continue
		}
		out = utf8.AppendRune(out, r)
	}
	return out
}

func notYAMLPrintable(r rune) bool {
	return r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == 0xfeff || r == 0xfffe || r == 0xffff
}
