package prometheus_test

import (
	"testing"
	"time"

	prom "github.com/prometheus/client_golang/prometheus"

	"github.com/kapi-dev/kapi/apiserver"
	kapiprom "github.com/kapi-dev/kapi/metrics/prometheus"
)

// BenchmarkObserveRequest is the cost of counting one finished GET: one
// goroutine, and as many as GOMAXPROCS at once, where the series' shared
// memory moves between cores.
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
}
