package apiserver_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	fxcbor "github.com/fxamacker/cbor/v2"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/codec/cbor"
	"github.com/kapi-dev/kapi/meta"
)

// bookmarkSeen is what a client finds in a BOOKMARK's object, whatever
// the encoding: the names of its top-level fields and of its metadata's
// fields, in order, and their values.
type bookmarkSeen struct {
	fields, metadata    string
	kind, apiVersion    string
	resourceVersion     string
	initialEventsEndSet string
}

// TestBookmarkObjectIsMinimalInEveryEncoding checks the object of a
// BOOKMARK in JSON, CBOR and protobuf, for Go-typed kinds whose spec and
// status are structs (Widget, and Sprocket with protobuf tags) and for an
// unstructured kind: it holds kind, apiVersion and metadata, the metadata
// holds the resourceVersion and, on the bookmark that ends the initial
// events, the k8s.io/initial-events-end annotation, and nothing else.
func TestBookmarkObjectIsMinimalInEveryEncoding(t *testing.T) {
	srv := apiserver.New(apiserver.Options{WatchCache: apiserver.WatchCacheOptions{BookmarkInterval: 50 * time.Millisecond}})
	srv.Register(widgetKind()).Register(sprocketKind()).Register(thingKind())
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	const base = "/apis/stable.example.com/v1/namespaces/default/"
	for _, r := range []struct{ path, body string }{
		{"widgets", `{"metadata":{"name":"a"},"spec":{"color":"red"},"status":{"readyReplicas":1}}`},
		{"sprockets", `{"metadata":{"name":"a"},"spec":{"teeth":3}}`},
		{"things", `{"metadata":{"name":"a"},"spec":{"x":1},"status":{"y":2}}`},
	} {
		if got := do(t, ts, "POST", base+r.path, "application/json", r.body); got.code != http.StatusCreated {
			t.Fatalf("create %s: %d %s", r.path, got.code, got.body)
		}
	}
	media := []struct {
		name, accept string
		read         func(t *testing.T, body io.Reader) bookmarkSeen
	}{
		{"json", "application/json", jsonBookmark},
		{"cbor", "application/cbor", cborBookmark},
		{"protobuf", pb, protobufBookmark},
	}
	kinds := []struct{ resource, kind string }{{"widgets", "Widget"}, {"sprockets", "Sprocket"}, {"things", "Thing"}}
	queries := []struct {
		name, query, metadata, annotation string
	}{
		{"initial events end", "sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true", "annotations,resourceVersion", "true"},
		{"periodic", "resourceVersion=1&allowWatchBookmarks=true", "resourceVersion", ""},
	}
	for _, m := range media {
		for _, k := range kinds {
			if m.name == "protobuf" && k.kind != "Sprocket" {
				continue // only Sprocket has protobuf tags
			}
			for _, q := range queries {
				t.Run(m.name+"/"+k.resource+"/"+q.name, func(t *testing.T) {
					body := openStream(t, ts.URL+base+k.resource+"?watch=1&"+q.query, m.accept)
					got := m.read(t, body)
					want := bookmarkSeen{fields: "apiVersion,kind,metadata", metadata: q.metadata, kind: k.kind,
						apiVersion: "stable.example.com/v1", resourceVersion: got.resourceVersion, initialEventsEndSet: q.annotation}
					if rv, err := strconv.ParseInt(got.resourceVersion, 10, 64); err != nil || rv <= 0 {
						t.Errorf("resourceVersion %q", got.resourceVersion)
					}
					if got != want {
						t.Errorf("bookmark object\n got %+v\nwant %+v", got, want)
					}
				})
			}
		}
	}
}

// openStream starts a watch and returns its body, closed with the test.
func openStream(t *testing.T, url, accept string) io.Reader {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	req.Header.Set("Accept", accept)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("watch: %s", resp.Status)
	}
	return resp.Body
}

// seenOfMap reads a bookmark's object decoded as generic JSON.
func seenOfMap(obj map[string]any) bookmarkSeen {
	md, _ := obj["metadata"].(map[string]any)
	ann, _ := md["annotations"].(map[string]any)
	var end string
	if len(ann) == 1 {
		end, _ = ann[meta.InitialEventsAnnotation].(string)
	}
	s := bookmarkSeen{fields: keys(obj), metadata: keys(md), initialEventsEndSet: end}
	s.kind, _ = obj["kind"].(string)
	s.apiVersion, _ = obj["apiVersion"].(string)
	s.resourceVersion, _ = md["resourceVersion"].(string)
	return s
}

func jsonBookmark(t *testing.T, body io.Reader) bookmarkSeen {
	sc := bufio.NewScanner(body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e struct {
			Type   string         `json:"type"`
			Object map[string]any `json:"object"`
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("event %s: %v", sc.Bytes(), err)
		}
		if e.Type == meta.Bookmark {
			return seenOfMap(e.Object)
		}
	}
	t.Fatalf("no BOOKMARK: %v", sc.Err())
	return bookmarkSeen{}
}

func cborBookmark(t *testing.T, body io.Reader) bookmarkSeen {
	dec := fxcbor.NewDecoder(body)
	for {
		var item fxcbor.RawMessage
		if err := dec.Decode(&item); err != nil {
			t.Fatalf("no BOOKMARK: %v", err)
		}
		j, err := cbor.ToJSON(item)
		if err != nil {
			t.Fatal(err)
		}
		var e struct {
			Type   string         `json:"type"`
			Object map[string]any `json:"object"`
		}
		if err := json.Unmarshal(j, &e); err != nil {
			t.Fatal(err)
		}
		if e.Type == meta.Bookmark {
			return seenOfMap(e.Object)
		}
	}
}

// protobufBookmark reads length-prefixed WatchEvent frames up to the first
// BOOKMARK and reads its object's envelope and fields by number: 1
// metadata at the top (any other field, even empty, is a spec or status
// the object should not carry); 6 resourceVersion and 12 annotations
// among the metadata's fields of non-zero value.
func protobufBookmark(t *testing.T, body io.Reader) bookmarkSeen {
	br := bufio.NewReader(body)
	for {
		var n uint32
		if err := binary.Read(br, binary.BigEndian, &n); err != nil {
			t.Fatalf("no BOOKMARK: %v", err)
		}
		frame := make([]byte, n)
		if _, err := io.ReadFull(br, frame); err != nil {
			t.Fatal(err)
		}
		typ, obj := splitEvent(t, frame)
		if typ != meta.Bookmark {
			continue
		}
		obj, ok := bytes.CutPrefix(obj, []byte("k8s\x00"))
		if !ok {
			t.Fatalf("object without the protobuf envelope: %q", obj)
		}
		unknown := pbFields(t, obj, false)
		typeMeta := pbFields(t, unknown[1], false)
		var s bookmarkSeen
		s.apiVersion, s.kind = string(typeMeta[1]), string(typeMeta[2])
		top := pbFields(t, unknown[2], false)
		s.fields = "apiVersion,kind" + pbNames(top, map[protowire.Number]string{1: "metadata"})
		md := pbFields(t, top[1], true)
		s.metadata = strings.TrimPrefix(pbNames(md, map[protowire.Number]string{6: "resourceVersion", 12: "annotations"}), ",")
		s.resourceVersion = string(md[6])
		if entry := pbFields(t, md[12], false); string(entry[1]) == meta.InitialEventsAnnotation {
			s.initialEventsEndSet = string(entry[2])
		}
		return s
	}
}

// pbFields reads a message's fields by number (the last of each number
// wins; no field here repeats). Scalars hold their varint's bytes. With
// nonZero, fields of zero value (an empty string or message, a varint 0)
// are left out: the protobuf codec, as Kubernetes' generated code, writes
// ObjectMeta's scalar fields whatever their value, and a client reads a
// zero there as the field unset.
func pbFields(t *testing.T, b []byte, nonZero bool) map[protowire.Number][]byte {
	t.Helper()
	fields := map[protowire.Number][]byte{}
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			t.Fatal("malformed message")
		}
		var v []byte
		var m int
		switch typ {
		case protowire.BytesType:
			v, m = protowire.ConsumeBytes(b[n:])
		case protowire.VarintType:
			var x uint64
			x, m = protowire.ConsumeVarint(b[n:])
			if x != 0 {
				v = b[n : n+m]
			}
		default:
			t.Fatalf("field %d of type %d", num, typ)
		}
		if m < 0 {
			t.Fatal("malformed message")
		}
		if !nonZero || len(v) > 0 {
			fields[num] = v
		}
		b = b[n+m:]
	}
	return fields
}

// pbNames lists a message's fields by name, sorted, each after a comma;
// unknown numbers as numbers.
func pbNames(fields map[protowire.Number][]byte, names map[protowire.Number]string) string {
	var out []string
	for num := range fields {
		name, ok := names[num]
		if !ok {
			name = strconv.Itoa(int(num))
		}
		out = append(out, name)
	}
	slices.Sort(out)
	var b strings.Builder
	for _, n := range out {
		b.WriteString("," + n)
	}
	return b.String()
}
