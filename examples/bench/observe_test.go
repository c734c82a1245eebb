package bench_test

import (
	"flag"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/kapi-dev/kapi/examples/widgets/server"
)

// instrumentedObjects lets BenchmarkGetInstrumented load fewer Widgets,
// for runs under an instruction counter such as callgrind, where loading
// 10,000 takes most of an hour.
var instrumentedObjects = flag.Int("bench.instrumented-objects", 10000, "Widgets loaded for BenchmarkGetInstrumented")

// BenchmarkGetInstrumented is BenchmarkGetParallel (10,000 Widgets, 16
// clients, in process and over loopback) without instruments, with kube-apiserver's
// Prometheus metrics, and with metrics and OpenTelemetry tracing (spans
// ended into a provider without exporter) at kube-apiserver's default
// sampling rate (0 per million: the benchmark's requests carry no
// traceparent, so none is traced) and at 1,000,000 per million (every
// request traced): compare the gets/s of each with the first.
func BenchmarkGetInstrumented(b *testing.B) {
	n := *instrumentedObjects
	for _, inst := range []struct {
		name   string
		tracer bool
		rate   int32
	}{
		{name: "instruments=off"},
		{name: "instruments=metrics"},
		{name: "instruments=metrics+tracing-default", tracer: true},
		{name: "instruments=metrics+tracing-all", tracer: true, rate: 1_000_000},
	} {
		cfg := server.Config{}
		if inst.name != "instruments=off" {
			cfg.Ops = server.Operations{Metrics: true}
		}
		if inst.tracer {
			cfg.Ops.TracerProvider, cfg.Ops.TracingSamplingRatePerMillion = sdktrace.NewTracerProvider(), inst.rate
		}
		for _, tr := range transports {
			b.Run("transport="+tr.String()+"/"+inst.name, func(b *testing.B) {
				f := cachedInstrumented(b, inst.name, cfg, n)
				var seed atomic.Uint64
				runParallel(b, f, tr, func() func(*client) error {
					rng := rand.New(rand.NewPCG(seed.Add(1), uint64(n)))
					return func(c *client) error { return c.get(rng.IntN(n)) }
				})
			})
		}
	}
}

// cachedInstrumented builds, once per process, a server with cfg and n
// Widgets.
func cachedInstrumented(tb testing.TB, key string, cfg server.Config, n int) *fixture {
	v, _ := fixtures.LoadOrStore("instrumented/"+key, new(lazyFixture))
	l := v.(*lazyFixture)
	l.once.Do(func() {
		h, err := server.NewHandler(cfg)
		if err != nil {
			l.err = err
			return
		}
		l.f, l.err = newFixtureOn(h, n)
	})
	if l.err != nil {
		tb.Fatalf("loading %d widgets: %v", n, l.err)
	}
	return l.f
}
