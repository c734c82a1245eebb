package bench_test

import (
	"flag"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

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
	for _, inst := range instrumentSets {
		cfg := inst.config()
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

// instrumentSet is a server configuration of BenchmarkGetInstrumented.
type instrumentSet struct {
	name   string
	tracer bool
	rate   int32
}

var instrumentSets = []instrumentSet{
	{name: "instruments=off"},
	{name: "instruments=metrics"},
	{name: "instruments=metrics+tracing-default", tracer: true},
	{name: "instruments=metrics+tracing-all", tracer: true, rate: 1_000_000},
}

func (inst instrumentSet) config() server.Config {
	cfg := server.Config{}
	if inst.name != "instruments=off" {
		cfg.Ops = server.Operations{Metrics: true}
	}
	if inst.tracer {
		cfg.Ops.TracerProvider, cfg.Ops.TracingSamplingRatePerMillion = sdktrace.NewTracerProvider(), inst.rate
	}
	return cfg
}

// BenchmarkInstrumentsOverhead measures what BenchmarkGetInstrumented
// compares, more firmly on a machine that runs other things too: the
// servers without instruments, with metrics, and with metrics and tracing
// at the default rate serve at once, and the clients (16, or one whose
// GETs run one at a time) move from one server to the next together
// every phaseLength or so, so that whatever else the machine does weighs
// on each alike. It reports, per server, the gets per second of its
// phases and the process CPU per GET in them, and each instrumented
// server's difference to the one without, in percent. Phases go to
// servers at random and last from half to one and a half phaseLength; a
// request that straddles two counts in the first.
func BenchmarkInstrumentsOverhead(b *testing.B) {
	const phaseLength = 10 * time.Millisecond
	n := *instrumentedObjects
	sets := instrumentSets[:3]
	for _, tr := range transports {
		for _, serial := range []bool{false, true} {
			clients := "clients=16"
			if serial {
				clients = "clients=1"
			}
			b.Run("transport="+tr.String()+"/"+clients, func(b *testing.B) {
				// Loaded in random order: identical servers loaded one after
				// the other differed by up to 15% in process, the first loaded
				// the fastest (its objects lie together in memory), so compare
				// the medians of several processes.
				fixtures := make([]*fixture, len(sets))
				for _, i := range rand.Perm(len(sets)) {
					inst := sets[i]
					fixtures[i] = cachedInstrumented(b, inst.name, inst.config(), n)
					fixtures[i].newClient(tr) // start the server outside the timer
				}
				stats := alternate(b, fixtures, tr, serial, phaseLength, func() func(*client) error {
					rng := rand.New(rand.NewPCG(rand.Uint64(), uint64(n)))
					return func(c *client) error { return c.get(rng.IntN(n)) }
				})
				off := stats[0]
				for i, inst := range sets {
					name := strings.TrimPrefix(inst.name, "instruments=")
					b.ReportMetric(off.rate(), "off-gets/s")
					if i == 0 {
						b.ReportMetric(off.cpuPerOp(), "off-cpu-ns/op")
						continue
					}
					st := stats[i]
					b.ReportMetric(st.rate(), name+"-gets/s")
					b.ReportMetric(st.cpuPerOp(), name+"-cpu-ns/op")
					b.ReportMetric(100*(st.rate()/off.rate()-1), name+"-gets/s-%")
					b.ReportMetric(100*(st.cpuPerOp()/off.cpuPerOp()-1), name+"-cpu/op-%")
				}
			})
		}
	}
}

// phaseStats is what one server's phases of alternate add up to.
type phaseStats struct {
	ops       int64
	wall, cpu time.Duration
}

func (s phaseStats) rate() float64     { return float64(s.ops) / s.wall.Seconds() }
func (s phaseStats) cpuPerOp() float64 { return float64(s.cpu) / float64(s.ops) }

// alternate runs b.N requests from the parallel clients (one client when
// serial), against one
// fixture at a time for about phase, and returns each fixture's share:
// requests, wall time and process CPU time.
func alternate(b *testing.B, fixtures []*fixture, tr transport, serial bool, phase time.Duration, newOp func() func(*client) error) []phaseStats {
	var current atomic.Int32
	stats := make([]phaseStats, len(fixtures))
	var mu sync.Mutex // guards stats' ops
	stop := make(chan struct{})
	ended := make(chan struct{})
	setParallelClients(b)
	b.ReportAllocs()
	b.ResetTimer()
	go func() {
		defer close(ended)
		t0, c0 := time.Now(), processCPU()
		// Phases of random length, to random fixtures: in turn and of one
		// length, they fell in step with the collector's cycles, and two
		// identical servers differed by 30%.
		timer := time.NewTimer(phase)
		defer timer.Stop()
		for {
			var last bool
			select {
			case <-timer.C:
			case <-stop:
				last = true
			}
			t1, c1 := time.Now(), processCPU()
			p := current.Load()
			stats[p].wall += t1.Sub(t0)
			stats[p].cpu += c1 - c0
			if last {
				return
			}
			current.Store(rand.Int32N(int32(len(fixtures))))
			timer.Reset(phase/2 + rand.N(phase))
			t0, c0 = t1, c1
		}
	}()
	drive := func(next func() bool) {
		clients := make([]*client, len(fixtures))
		for i, f := range fixtures {
			clients[i] = f.newClient(tr)
		}
		op := newOp()
		ops := make([]int64, len(fixtures))
		defer func() {
			mu.Lock()
			defer mu.Unlock()
			for i, n := range ops {
				stats[i].ops += n
			}
		}()
		for next() {
			p := current.Load()
			if err := op(clients[p]); err != nil {
				b.Error(err)
				return
			}
			ops[p]++
		}
	}
	if serial {
		i := 0
		drive(func() bool { i++; return i <= b.N })
	} else {
		b.RunParallel(func(pb *testing.PB) { drive(pb.Next) })
	}
	b.StopTimer()
	close(stop)
	<-ended
	mu.Lock()
	defer mu.Unlock()
	return stats
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
