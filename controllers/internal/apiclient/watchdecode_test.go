package apiclient

import (
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kapi-dev/kapi/meta"
)

// fullDecode is how a watch event reads with encoding/json, the members
// of unreadMetadata dropped: what decodeEvent must return.
func fullDecode(t testing.TB, frame string) (Event, bool) {
	var raw struct {
		Type   string          `json:"type"`
		Object json.RawMessage `json:"object"`
	}
	if err := json.Unmarshal([]byte(frame), &raw); err != nil {
		return Event{}, false
	}
	ev := Event{Type: raw.Type}
	if raw.Type == "ERROR" {
		return ev, json.Unmarshal(raw.Object, &ev.Status) == nil
	}
	if json.Unmarshal(raw.Object, &ev.Object) != nil {
		return Event{}, false
	}
	dropUnread(&ev.Object.Metadata)
	return ev, true
}

const managed = `"managedFields":[{"manager":"m","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:a":{}}}}]`

var eventFrames = []struct{ name, frame string }{
	{"managedFields in the middle", `{"type":"ADDED","object":{"kind":"Widget","apiVersion":"x.io/v1","metadata":{"name":"a","namespace":"n",` + managed + `,"uid":"u1","resourceVersion":"7","ownerReferences":[{"apiVersion":"v1","kind":"K","name":"o","uid":"u0"}]},"spec":{"a":1}}}`},
	{"managedFields first", `{"type":"MODIFIED","object":{"kind":"Widget","metadata":{` + managed + `,"name":"a","finalizers":["f"]}}}`},
	{"managedFields last", `{"type":"DELETED","object":{"apiVersion":"v1","kind":"Widget","metadata":{"name":"a",` + managed + `}}}`},
	{"managedFields alone", `{"type":"ADDED","object":{"kind":"Widget","metadata":{` + managed + `}}}`},
	{"no managedFields", `{"type":"BOOKMARK","object":{"kind":"Widget","apiVersion":"x.io/v1","metadata":{"resourceVersion":"12","annotations":{"k8s.io/initial-events-end":"true"}}}}`},
	{"spaces", "{ \"type\" : \"ADDED\" , \"object\" : { \"kind\" : \"W\" , \"metadata\" : { \"name\" : \"a\" , \"managedFields\" : [ ] , \"labels\" : { \"k\" : \"v\" } } } }\n"},
	{"spaces, last member", "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\" ,\n \"managedFields\" : [{}] }}}"},
	{"the key as a value elsewhere", `{"type":"ADDED","object":{"kind":"W","metadata":{"name":"a","annotations":{"managedFields":"x","b":"\"managedFields\":[1]"},` + managed + `},"spec":{"managedFields":[1]}}}`},
	{"escapes", `{"type":"ADDED","object":{"kind":"W\u0069","metadata":{"name":"a","labels":{"k":"v\"\\\u00e9"},` + managed + `}}}`},
	{"full metadata", `{"type":"MODIFIED","object":{"kind":"W","metadata":` + fullMetadata + `}}`},
	{"an unknown metadata field", `{"type":"ADDED","object":{"kind":"W","metadata":{"name":"a","futureField":{"x":[1]},"uid":"u"}}}`},
	{"a name in other case", `{"type":"ADDED","object":{"kind":"W","metadata":{"Name":"a","NAMESPACE":"n"}}}`},
	{"error", `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old resource version: 1 (5)","reason":"Expired","code":410}}`},
}

// fullMetadata is metadata as the server writes it, without managedFields.
const fullMetadata = `{"name":"w1","generateName":"w","namespace":"default","uid":"0b7e5a4c-1f2d-4c3b-9a8e-7d6c5b4a3f21","resourceVersion":"4242","generation":3,"creationTimestamp":"2026-11-28T10:00:00Z","deletionTimestamp":"2026-11-28T10:05:00Z","deletionGracePeriodSeconds":0,"labels":{"app":"web","tier":"front"},"annotations":{"note":"x"},"ownerReferences":[{"apiVersion":"example.com/v1","kind":"Gadget","name":"g","uid":"u0","controller":true,"blockOwnerDeletion":true}],"finalizers":["example.com/keep"]}`

// TestMetadataTakesThePlan: the metadata of a watch event as the server
// writes it decodes by the compiled plan, which allocates less than
// encoding/json, with the same result.
func TestMetadataTakesThePlan(t *testing.T) {
	b := []byte(fullMetadata)
	var viaPlan, viaJSON meta.ObjectMeta
	if !metadataPlan.Decode(b, &viaPlan) {
		t.Fatal("the plan gave up on the server's metadata")
	}
	if err := json.Unmarshal(b, &viaJSON); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(viaJSON, viaPlan); diff != "" {
		t.Fatalf("(-json +plan):\n%s", diff)
	}
	plan := testing.AllocsPerRun(100, func() {
		var m meta.ObjectMeta
		_ = decodeMetadata(b, &m)
	})
	general := testing.AllocsPerRun(100, func() {
		var m meta.ObjectMeta
		_ = json.Unmarshal(b, &m)
	})
	if plan >= general {
		t.Errorf("decodeMetadata allocates %v times, encoding/json %v: the plan is not taken", plan, general)
	}
}

func TestDecodeEventMatchesFullDecode(t *testing.T) {
	for _, tt := range eventFrames {
		t.Run(tt.name, func(t *testing.T) {
			want, ok := fullDecode(t, tt.frame)
			if !ok {
				t.Fatalf("bad test frame %s", tt.frame)
			}
			got, err := decodeEvent([]byte(tt.frame))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeEventRefusesMalformed(t *testing.T) {
	for _, frame := range []string{``, `[]`, `{"type":"ADDED"}`, `{"object":{"metadata":{}}}`, `{"type":1,"object":{"metadata":{}}}`,
		`{"type":"ADDED","object":{"kind":"W"}}`, `{"type":"ADDED","object":{"metadata":{"name":1}}}`, `{"type":"ADDED","object":{"metadata":{"name":"a"`} {
		if ev, err := decodeEvent([]byte(frame)); err == nil {
			t.Errorf("%s: decoded as %+v, want an error", frame, ev)
		}
	}
}

func TestFrameReader(t *testing.T) {
	big := `{"type":"ADDED","object":{"metadata":{"name":"` + strings.Repeat("x", 200<<10) + `"}}}`
	stream := eventFrames[0].frame + "\n" + big + "\n" + eventFrames[1].frame + "\n"
	for _, tt := range []struct {
		name    string
		stream  string
		want    []string
		wantErr error
	}{
		{"frames, one over the buffer", stream, []string{eventFrames[0].frame, big, eventFrames[1].frame}, io.EOF},
		{"cut short", stream + `{"type":"ADD`, []string{eventFrames[0].frame, big, eventFrames[1].frame}, io.ErrUnexpectedEOF},
		{"cut short in a big frame", big[:100<<10], nil, io.ErrUnexpectedEOF},
		{"empty", "", nil, io.EOF},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fr := newFrameReader(strings.NewReader(tt.stream))
			for i := 0; ; i++ {
				f, err := fr.next()
				if err != nil {
					if !errors.Is(err, tt.wantErr) || i != len(tt.want) {
						t.Fatalf("after %d frames: %v; want %v after %d", i, err, tt.wantErr, len(tt.want))
					}
					return
				}
				if i >= len(tt.want) || strings.TrimSuffix(string(f), "\n") != tt.want[i] {
					t.Fatalf("frame %d: %.80q", i, f)
				}
			}
		})
	}
}

// TestFrameReaderHeld: an idle watch holds its read buffer for as long as
// it lasts, one per watched resource; it is small, and frames longer than
// it read whole (TestFrameReader).
func TestFrameReaderHeld(t *testing.T) {
	if held := newFrameReader(strings.NewReader("")).br.Size(); held > 16<<10 {
		t.Errorf("a frame reader holds a buffer of %d bytes, want at most 16 KiB", held)
	}
}

// FuzzDecodeEvent: an event as a server writes it (canonical JSON:
// every key once, as spelled) reads as it does with encoding/json,
// managedFields aside; and decodeEvent never panics.
func FuzzDecodeEvent(f *testing.F) {
	for _, tt := range eventFrames {
		f.Add(tt.frame)
	}
	f.Fuzz(func(t *testing.T, frame string) {
		decodeEvent([]byte(frame)) // must not panic
		var doc any
		if json.Unmarshal([]byte(frame), &doc) != nil {
			return
		}
		canonical, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeEvent(canonical)
		want, ok := fullDecode(t, string(canonical))
		if !ok || err != nil {
			return // refusing what encoding/json reads is allowed: a server sends neither
		}
		// encoding/json also reads keys spelled in another case, such as
		// "ManagedFields", which decodeEvent does not leave out.
		got.Object.Metadata.ManagedFields, want.Object.Metadata.ManagedFields = nil, nil
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", canonical, diff)
		}
	})
}
