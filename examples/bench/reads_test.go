package bench_test

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strconv"
	"testing"

	"github.com/kapi-dev/kapi/examples/bench"
)

// The Accept headers of the renderings the read benchmarks ask for, as
// kubectl and client-go send them.
const (
	acceptTable = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
	// acceptPartialList is what a metadata-only informer lists with.
	acceptPartialList = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"
	acceptProtobuf    = "application/vnd.kubernetes.protobuf"
	// acceptPartialProtobuf is what client-go's metadata client lists with.
	acceptPartialProtobuf = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"
	acceptCBOR            = "application/cbor"
)

// readCase is one read the benchmarks measure on the 10,000 Widgets.
type readCase struct {
	name   string
	accept string
	query  string // the list's query string, without "?"
	// pages > 0 lists in pages of that size, following continue tokens
	// through the whole collection: one op is one full pass.
	pages int
}

// selectShard is a label selector matching one shard: 1% of the Widgets.
var selectShard = "labelSelector=" + url.QueryEscape(shardLabel+"=42")

var readCases = []readCase{
	{name: "table", accept: acceptTable},
	{name: "partial-metadata", accept: acceptPartialList},
	{name: "partial-metadata-protobuf", accept: acceptPartialProtobuf},
	{name: "protobuf", accept: acceptProtobuf},
	{name: "cbor", accept: acceptCBOR},
	{name: "pages=500", pages: 500},
	{name: "label-1pct", query: selectShard},
	{name: "label-1pct-table", accept: acceptTable, query: selectShard},
	{name: "field-none", query: "fieldSelector=" + url.QueryEscape("spec.color=red")},
	{name: "field-1pct", query: "fieldSelector=" + url.QueryEscape("spec.color="+string(colorOf(42)))},
}

// BenchmarkRead lists the 10,000 Widgets in the renderings and with the
// selectors clients use besides the plain JSON list (BenchmarkList): as
// the Table kubectl get prints, as partial object metadata, in protobuf
// and CBOR, in pages of 500, and with selectors matching 1% (a label, a
// selectable field) or none of them. MB/s is the size of one response (of a pass, for pages) over the
// time per op.
func BenchmarkRead(b *testing.B) {
	const n = 10000
	for _, rc := range readCases {
		b.Run("read="+rc.name, func(b *testing.B) {
			for _, tr := range transports {
				b.Run("transport="+tr.String(), func(b *testing.B) {
					c := preloaded(b, n).newClient(tr)
					c.accept = rc.accept
					size, err := c.read(rc)
					if err != nil { // warm up and size the response
						b.Fatal(err)
					}
					b.SetBytes(int64(size))
					b.ReportAllocs()
					for b.Loop() {
						if _, err := c.read(rc); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}

// read runs one read case and returns the bytes received.
func (c *client) read(rc readCase) (int, error) {
	path := bench.CollectionPath
	if rc.query != "" {
		path += "?" + rc.query
	}
	if rc.pages == 0 {
		if err := c.expect(200, "GET", path, nil); err != nil {
			return 0, err
		}
		return c.resp.Len(), nil
	}
	total := 0
	next := ""
	for {
		q := url.Values{"limit": {itoa(rc.pages)}}
		if next != "" {
			q.Set("continue", next)
		}
		if err := c.expect(200, "GET", bench.CollectionPath+"?"+q.Encode(), nil); err != nil {
			return 0, err
		}
		total += c.resp.Len()
		var ok bool
		if next, ok = continueOf(c.resp.Bytes()); !ok {
			return total, nil
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// continueOf finds metadata.continue in a JSON list: the first "continue"
// key, since the list's metadata comes before its items.
func continueOf(b []byte) (string, bool) {
	const key = `"continue":"`
	i := bytes.Index(b, []byte(key))
	if i < 0 {
		return "", false
	}
	b = b[i+len(key):]
	j := bytes.IndexByte(b, '"')
	if j <= 0 {
		return "", false
	}
	return string(b[:j]), true
}

// TestReadCases checks what each of BenchmarkRead's reads answers on
// 1,000 Widgets, over both transports, so that the benchmark cannot
// measure errors or empty answers.
func TestReadCases(t *testing.T) {
	const n = 1000
	want := map[string]struct {
		kind  string
		items int
	}{
		"table":            {"Table", n},
		"partial-metadata": {"PartialObjectMetadataList", n},
		"pages=500":        {"WidgetList", n},
		"label-1pct":       {"WidgetList", n / shards},
		"label-1pct-table": {"Table", n / shards},
		"field-none":       {"WidgetList", 0},
		"field-1pct":       {"WidgetList", n / shards},
	}
	for _, tr := range transports {
		t.Run(tr.String(), func(t *testing.T) {
			for _, rc := range readCases {
				t.Run(rc.name, func(t *testing.T) {
					c := preloaded(t, n).newClient(tr)
					c.accept = rc.accept
					size, err := c.read(rc)
					if err != nil {
						t.Fatal(err)
					}
					w, ok := want[rc.name]
					if !ok { // protobuf, CBOR: a list of every Widget's bytes
						if size < n*1000 {
							t.Errorf("%d bytes for %d Widgets", size, n)
						}
						b := c.resp.Bytes()
						if rc.accept == acceptPartialProtobuf && (!bytes.HasPrefix(b, []byte("k8s\x00")) || !bytes.Contains(b[:64], []byte("PartialObjectMetadataList"))) {
							t.Errorf("not a PartialObjectMetadataList in protobuf: %q", b[:min(len(b), 64)])
						}
						return
					}
					if rc.pages > 0 {
						if size < n*1000 {
							t.Errorf("a pass of pages is %d bytes for %d Widgets", size, n)
						}
						return
					}
					var l struct {
						Kind  string            `json:"kind"`
						Items []json.RawMessage `json:"items"`
						Rows  []struct {
							Cells  []any           `json:"cells"`
							Object json.RawMessage `json:"object"`
						} `json:"rows"`
					}
					if err := json.Unmarshal(c.resp.Bytes(), &l); err != nil {
						t.Fatal(err)
					}
					got := len(l.Items)
					if l.Kind == "Table" {
						got = len(l.Rows)
						for _, r := range l.Rows {
							if len(r.Cells) != 5 || len(r.Object) == 0 {
								t.Fatalf("row %v with object %s", r.Cells, r.Object)
							}
						}
					}
					if l.Kind != w.kind || got != w.items {
						t.Errorf("got a %s of %d, want a %s of %d", l.Kind, got, w.kind, w.items)
					}
				})
			}
		})
	}
}
