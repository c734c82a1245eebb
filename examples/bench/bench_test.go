package bench_test

import (
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/examples/bench"
)

// sizes are the collection sizes get and list are measured at.
var sizes = []int{1000, 10000}

func objects(n int) string { return "objects=" + strconv.Itoa(n) }

// BenchmarkCreate POSTs Widgets with unique names into a server of its
// own, one client.
func BenchmarkCreate(b *testing.B) {
	for _, tr := range transports {
		b.Run("transport="+tr.String(), func(b *testing.B) {
			c := freshFixture(b).newClient(tr)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if err := c.create("create", i); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// BenchmarkCreateParallel is BenchmarkCreate with 16 concurrent clients;
// it reports request latency quantiles and creates per second.
func BenchmarkCreateParallel(b *testing.B) {
	for _, tr := range transports {
		b.Run("transport="+tr.String(), func(b *testing.B) {
			f := freshFixture(b)
			var next atomic.Int64
			runParallel(b, f, tr, func() func(*client) error {
				return func(c *client) error { return c.create("create", int(next.Add(1))) }
			})
		})
	}
}

// runParallel runs a request from each of the concurrent clients
// setParallelClients asks for, timing every request, and reports the
// latency quantiles and requests per second. newOp makes one client's
// request function, so that per-client state (a random source) is not
// shared.
func runParallel(b *testing.B, f *fixture, tr transport, newOp func() func(*client) error) {
	f.newClient(tr) // start the server outside the timer
	var lat latencies
	setParallelClients(b)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := processCPU()
	b.RunParallel(func(pb *testing.PB) {
		c := f.newClient(tr)
		op := newOp()
		h := new(histogram)
		defer lat.merge(h)
		for pb.Next() {
			start := time.Now()
			err := op(c)
			h.record(time.Since(start))
			if err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.StopTimer()
	// Process CPU per request (clients' share included) depends much less
	// on what else the machine runs than the rates do.
	b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
	lat.report(b)
}

// BenchmarkGet GETs a random existing Widget, one client.
func BenchmarkGet(b *testing.B) {
	for _, n := range sizes {
		b.Run(objects(n), func(b *testing.B) {
			for _, tr := range transports {
				b.Run("transport="+tr.String(), func(b *testing.B) {
					c := preloaded(b, n).newClient(tr)
					rng := rand.New(rand.NewPCG(1, uint64(n)))
					b.ReportAllocs()
					for b.Loop() {
						if err := c.get(rng.IntN(n)); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}

// BenchmarkGetParallel is BenchmarkGet on 10,000 Widgets with 16
// concurrent clients; it reports request latency quantiles and gets per
// second.
func BenchmarkGetParallel(b *testing.B) {
	const n = 10000
	b.Run(objects(n), func(b *testing.B) {
		for _, tr := range transports {
			b.Run("transport="+tr.String(), func(b *testing.B) {
				var seed atomic.Uint64
				runParallel(b, preloaded(b, n), tr, func() func(*client) error {
					rng := rand.New(rand.NewPCG(seed.Add(1), n))
					return func(c *client) error { return c.get(rng.IntN(n)) }
				})
			})
		}
	})
}

// BenchmarkList GETs the whole collection as JSON, one client. Its MB/s
// is the response size over the time per list.
func BenchmarkList(b *testing.B) {
	for _, n := range sizes {
		b.Run(objects(n), func(b *testing.B) {
			for _, tr := range transports {
				b.Run("transport="+tr.String(), func(b *testing.B) {
					c := preloaded(b, n).newClient(tr)
					if err := c.list(); err != nil { // warm up and size the response
						b.Fatal(err)
					}
					b.SetBytes(int64(c.resp.Len()))
					b.ReportAllocs()
					for b.Loop() {
						if err := c.list(); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}

// BenchmarkUpdate PUTs Widgets (cycling through 1,000) with their current
// resourceVersion and a changed spec.replicas, one client.
func BenchmarkUpdate(b *testing.B) {
	for _, tr := range transports {
		b.Run("transport="+tr.String(), func(b *testing.B) {
			c := updateFixture(b).newClient(tr)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if err := c.update(i % updateObjects); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// BenchmarkListVersions GETs 10,000 Widgets as JSON in the storage
// version (v1) and in v1beta1, which every item is converted to: the
// conversion and encoding are done once per object version and kept, so
// that later lists in v1beta1 cost about what lists in v1 do.
func BenchmarkListVersions(b *testing.B) {
	const n = 10000
	for _, version := range []string{"v1", "v1beta1"} {
		b.Run("version="+version, func(b *testing.B) {
			c := preloaded(b, n).newClient(inProcess)
			path := strings.Replace(bench.CollectionPath, "/v1/", "/"+version+"/", 1)
			list := func() error { return c.expect(http.StatusOK, "GET", path, nil) }
			if err := list(); err != nil { // warm up and size the response
				b.Fatal(err)
			}
			b.SetBytes(int64(c.resp.Len()))
			b.ReportAllocs()
			for b.Loop() {
				if err := list(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
