package bench_test

import (
	"math/rand/v2"
	"sync/atomic"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/kapi-dev/kapi/examples/widgets/server"
)

// BenchmarkGetInstrumented is BenchmarkGetParallel (10,000 Widgets, 16
// clients, loopback) with kube-apiserver's Prometheus metrics and
// OpenTelemetry tracing (every request sampled, spans ended into a
// provider without exporter) off and on: compare gets/s of the two.
func BenchmarkGetInstrumented(b *testing.B) {
	const n = 10000
	for _, on := range []bool{false, true} {
		name := "instruments=off"
		cfg := server.Config{}
		if on {
			name = "instruments=on"
			cfg.Ops = server.Operations{Metrics: true, TracerProvider: sdktrace.NewTracerProvider()}
		}
		b.Run(name, func(b *testing.B) {
			f := cachedInstrumented(b, name, cfg, n)
			var seed atomic.Uint64
			runParallel(b, f, loopback, func() func(*client) error {
				rng := rand.New(rand.NewPCG(seed.Add(1), n))
				return func(c *client) error { return c.get(rng.IntN(n)) }
			})
		})
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
