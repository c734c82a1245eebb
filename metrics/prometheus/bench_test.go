package prometheus_test

import (
	"slices"
	"testing"
	"time"

	prom "github.com/prometheus/client_golang/prometheus"

	"github.com/kapi-dev/kapi/apiserver"
	kapiprom "github.com/kapi-dev/kapi/metrics/prometheus"
)

// BenchmarkObserveRequest is the cost of counting one finished request:
// one goroutine, and as many as GOMAXPROCS at once, where memory the
// series share would move between cores.
func BenchmarkObserveRequest(b *testing.B) {
	m, err := kapiprom.New(prom.NewRegistry())
	if err != nil {
		b.Fatal(err)
	}
	rec := apiserver.RequestRecord{
		RequestLabels: apiserver.RequestLabels{Verb: "GET", Group: "example.com", Version: "v1", Resource: "widgets",
			Scope: "resource", Component: "apiserver"},
		Code: 200, Duration: 3 * time.Millisecond, ResponseSize: 3900,
	}
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m.ObserveRequest(&rec)
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			r := rec
			for pb.Next() {
				m.ObserveRequest(&r)
			}
		})
	})
	// Requests of four label sets in turn: no request has the labels of
	// the one before.
	mixed := make([]apiserver.RequestRecord, 4)
	for i := range mixed {
		mixed[i] = rec
	}
	mixed[1].Verb, mixed[1].Scope = "LIST", "namespace"
	mixed[2].Code = 404
	mixed[3].Verb, mixed[3].Resource = "PATCH", "gadgets"
	b.Run("parallel-mixed", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			rs := slices.Clone(mixed)
			for i := 0; pb.Next(); i++ {
				m.ObserveRequest(&rs[i%len(rs)])
			}
		})
	})
}
