package watch

import (
	"fmt"
	"testing"
)

// BenchmarkReindexCreate indexes creates shaped as the benchmark's
// Widgets: a label shared by every object, a field value shared by all,
// and a label naming the object, into an index of 10,000 such objects;
// each create its own change (gen), as when the cache applies one event
// at a time.
func BenchmarkReindexCreate(b *testing.B) {
	const base = 10000
	key := func(i int) string { return fmt.Sprintf("/registry/example.com/widgets/bench/w-%07d", i) }
	terms := func(i int) []string {
		return []string{"=spec.color=turquoise", "app.kubernetes.io/instance=" + fmt.Sprintf("w-%07d", i), "app.kubernetes.io/name=widget"}
	}
	root := new(pnode)
	for i := range base {
		root = reindex(root, key(i), nil, terms(i), 1)
	}
	keys := make([]string, b.N)
	ts := make([][]string, b.N)
	for i := range b.N {
		keys[i], ts[i] = key(base+i), terms(base+i)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		root = reindex(root, keys[i], nil, ts[i], uint64(i+2))
	}
}
