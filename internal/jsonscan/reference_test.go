package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// The scans are checked against encoding/json's decoder on random
// documents: strings with escapes (quotes, backslashes, unicode),
// brackets inside strings, nesting, spaces between tokens, and keys
// that repeat or are spelled with escapes.

// randomJSON writes a random JSON value of at most depth levels.
func randomJSON(r *rand.Rand, w *strings.Builder, depth int) {
	space := func() {
		if r.IntN(4) == 0 {
			w.WriteString([]string{" ", "\n", "\t ", "\r\n"}[r.IntN(4)])
		}
	}
	switch n := r.IntN(8); {
	case depth > 0 && n == 0:
		w.WriteByte('[')
		for i := range r.IntN(4) {
			if i > 0 {
				w.WriteByte(',')
			}
			space()
			randomJSON(r, w, depth-1)
			space()
		}
		w.WriteByte(']')
	case depth > 0 && n == 1:
		w.WriteByte('{')
		for i := range r.IntN(4) {
			if i > 0 {
				w.WriteByte(',')
			}
			space()
			w.WriteString(randomString(r, keyNames))
			space()
			w.WriteByte(':')
			space()
			randomJSON(r, w, depth-1)
			space()
		}
		w.WriteByte('}')
	case n < 5:
		w.WriteString(randomString(r, nil))
	default:
		w.WriteString([]string{"true", "false", "null", "0", "-12.5e3", strconv.Itoa(r.IntN(1000))}[r.IntN(6)])
	}
}

// keyNames are the keys random objects use, so that lookups hit.
var keyNames = []string{"a", "b", "metadata", "object", "type", `q"`, `\`}

// randomString returns a quoted JSON string: one of names (escaped
// sometimes) when names is not nil, else random text with escapes and
// JSON punctuation in it.
func randomString(r *rand.Rand, names []string) string {
	if names != nil {
		s := names[r.IntN(len(names))]
		q, _ := json.Marshal(s)
		if r.IntN(3) == 0 && q[1] != '\\' { // spell the first byte as \u00XX
			return `"\u00` + strconv.FormatInt(int64(s[0])>>4, 16) + strconv.FormatInt(int64(s[0])&15, 16) + string(q[2:])
		}
		return string(q)
	}
	pieces := []string{"x", `\"`, `\\`, `\u00e9`, "{", "}", "[", "]", ",", ":", "é", `\n`, " "}
	var b strings.Builder
	b.WriteByte('"')
	for range r.IntN(12) {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	b.WriteByte('"')
	return b.String()
}

// referenceFields finds the first member of each key in the object doc
// with encoding/json's decoder.
func referenceFields(doc []byte, keys []string) ([]Member, error) {
	found := make([]Member, len(keys))
	dec := json.NewDecoder(bytes.NewReader(doc))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("not an object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		end := int(dec.InputOffset())
		for n, k := range keys {
			if k == key && !found[n].Found() {
				found[n] = Member{Start: end - len(raw), End: end}
			}
		}
	}
	return found, nil
}

func TestScansMatchEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 19))
	for range 20000 {
		var w strings.Builder
		randomJSON(r, &w, 4)
		value := w.String()
		doc := []byte(value + " ,1")
		if got := SkipValue(doc, 0); got != len(value) {
			t.Fatalf("SkipValue(%s) = %d, want %d", doc, got, len(value))
		}
		if !strings.HasPrefix(value, "{") {
			continue
		}
		want, err := referenceFields([]byte(value), keyNames)
		if err != nil {
			t.Fatalf("reference on %s: %v", value, err)
		}
		got := make([]Member, len(keyNames))
		ObjectFields([]byte(value), keyNames, got)
		for n := range keyNames {
			if got[n].Start != want[n].Start || got[n].End != want[n].End {
				t.Fatalf("ObjectFields(%s)[%q] = %+v, want %+v", value, keyNames[n], got[n], want[n])
			}
			if got[n].Found() && (value[got[n].Key:got[n].Key+1] != `"`) {
				t.Fatalf("ObjectFields(%s)[%q].Key = %d: not a quote", value, keyNames[n], got[n].Key)
			}
		}
	}
}

// FuzzSkipValue checks SkipValue on any input against encoding/json: a
// valid document, with no leading space, ends where its trailing space
// starts; on any input it never panics or overruns.
func FuzzSkipValue(f *testing.F) {
	for _, s := range []string{`{"a":[1,"]\""]}`, `"\\"`, `[{}] `, `tru`, `"abc\`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got := SkipValue(b, 0)
		if got > len(b) {
			t.Fatalf("SkipValue(%q) = %d, past the end", b, got)
		}
		if !json.Valid(b) || SkipSpace(b, 0) != 0 {
			return
		}
		if want := len(bytes.TrimRight(b, " \t\r\n")); got != want {
			t.Fatalf("SkipValue(%q) = %d, want %d", b, got, want)
		}
	})
}
