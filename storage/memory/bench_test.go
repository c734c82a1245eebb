package memory_test

import (
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/storage/memory"
	"github.com/kapi-dev/kapi/storage/storagetest"
)

// BenchmarkStore runs the shared storage benchmarks, each run on a fresh
// store. WatchFanout's store keeps enough history for watchers that fall
// far behind; the others use the default history window.
func BenchmarkStore(b *testing.B) {
	storagetest.Bench(b, func(b *testing.B) storage.Interface {
		var opts memory.Options
		if strings.HasSuffix(b.Name(), "/WatchFanout") {
			opts.HistoryWindow = 1 << 20
		}
		s := memory.New(opts)
		b.Cleanup(s.Close)
		return s
	})
}
