package apiserver

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/apiserver/internal/handlers"
	"github.com/kapi-dev/kapi/apiserver/internal/registry"
	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/storage"
)

// TestRVMarkerIndex checks that the placeholder is found where
// bytes.Index finds it, among the backslashes and quotes of JSON around
// and before it, and in near misses.
func TestRVMarkerIndex(t *testing.T) {
	m := string(registry.RvMarker)
	for _, tc := range []struct{ name, value string }{
		{"empty", ""},
		{"marker only", m},
		{"stored object", `{"kind":"W","metadata":{"name":"a",` + m + `,"uid":"u"},"spec":{"x":"\"q\""}}`},
		{"escapes before", `{"metadata":{"name":"a\\b\"c\u00e9",` + m + `}}`},
		{"escape right before", `{"a":"\\",` + m + `}`},
		{"no marker", `{"metadata":{"resourceVersion":"12","note":"\u0000"}}`},
		{"a near miss first", `{"x":"resourceVersion\":\"\u0000\"",` + m + `}`},
		{"twice", m + "," + m},
		{"truncated", m[:len(m)-1]},
		{"backslash at the start", `\` + m},
		{"marker at the end", strings.Repeat(`\\`, 40) + m},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := bytes.Index([]byte(tc.value), registry.RvMarker)
			if got := registry.RvMarkerIndex([]byte(tc.value)); got != want {
				t.Errorf("rvMarkerIndex = %d, want %d", got, want)
			}
		})
	}
}

// TestStoredInfoAllocatesNothing checks that finding the version of a
// value stored in a known version, which lists do for every item of a
// kind of several versions, does not allocate, and that other apiVersion
// values still resolve as they did.
func TestStoredInfoAllocatesNothing(t *testing.T) {
	k := Kind{Group: "g.example.com", Kind: "Thing", Resource: "things",
		New:      func() meta.Object { return &meta.Unstructured{} },
		Convert:  func(obj *meta.Unstructured, to string) error { obj.APIVersion = to; return nil },
		Versions: []KindVersion{{Name: "v1", Storage: true}, {Name: "v2"}}}
	_, _, vs, err := registry.ExpandVersions(k)
	if err != nil {
		t.Fatal(err)
	}
	r := &registry.Resource{Versions: vs}
	v2 := []byte(`{"apiVersion":"g.example.com/v2","kind":"Thing","metadata":{"name":"a"}}`)
	if n := testing.AllocsPerRun(100, func() { _, _ = r.StoredInfo(v2) }); n != 0 {
		t.Errorf("storedInfo allocated %v times", n)
	}
	for _, tc := range []struct {
		value, want string // want: the version, or "error"
	}{
		{`{"apiVersion":"g.example.com/v2"}`, "g.example.com/v2"},
		{`{"apiVersion":"g.example.com\/v2"}`, "g.example.com/v2"},
		{`{"apiVersion":""}`, "g.example.com/v1"},
		{`{"apiVersion":null}`, "g.example.com/v1"},
		{`{"apiVersion":12}`, "g.example.com/v1"},
		{`{"kind":"Thing"}`, "g.example.com/v1"},
		{`{"apiVersion":"g.example.com/v9"}`, "error"},
	} {
		info, err := r.StoredInfo([]byte(tc.value))
		got := "error"
		if err == nil {
			got = info.APIVersion
		}
		if got != tc.want {
			t.Errorf("storedInfo(%s) = %s, want %s", tc.value, got, tc.want)
		}
	}
}

// TestAppendJSONEvent checks that a JSON event framed straight from the
// stored bytes is what codec.JSON frames around the spliced object, for
// every event type and with or without a trailing newline.
func TestAppendJSONEvent(t *testing.T) {
	m := string(registry.RvMarker)
	for _, tc := range []struct{ name, value string }{
		{"stored object", `{"kind":"W","metadata":{"name":"a",` + m + `,"uid":"u"},"spec":{"x":"\"q\""}}`},
		{"trailing newline", `{"metadata":{` + m + `}}` + "\n"},
		{"marker last", `{"metadata":{"name":"b",` + m + `}}`},
	} {
		for _, typ := range []string{"ADDED", "MODIFIED", "DELETED"} {
			t.Run(tc.name+"/"+typ, func(t *testing.T) {
				kv := &storage.KeyValue{Key: "k", Value: []byte(tc.value), ModRevision: 42}
				at := registry.RvMarkerIndex(kv.Value)
				want := codec.JSON{}.AppendEvent([]byte("x"), typ, registry.AppendSpliced(nil, kv, at))
				if got := handlers.AppendJSONEvent([]byte("x"), typ, kv, at); !bytes.Equal(got, want) {
					t.Errorf("got  %s\nwant %s", got, want)
				}
			})
		}
	}
}
