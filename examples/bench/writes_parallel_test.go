package bench_test

import (
	"bytes"
	"fmt"
	"net/http"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
)

// parallelWrites are the writes BenchmarkWriteParallel measures, each a
// change of spec.replicas of the i-th Widget the way a client makes it.
var parallelWrites = []struct {
	name  string
	write func(c *client, i int) error
}{
	{"get-put", (*client).getPut},
	{"merge-patch", func(c *client, i int) error { return c.mergePatchReplicas(i, c.nextReplicas(i)) }},
	{"apply", func(c *client, i int) error { return c.applyReplicas(i, c.nextReplicas(i)) }},
}

// BenchmarkWriteParallel changes spec.replicas of 10,000 Widgets with 16
// concurrent clients, in process and over loopback, once per kind of
// write: a GET of the object and a PUT of it back whole with its
// resourceVersion and spec.replicas changed (one op per pair, as a
// client's read-modify-write), a JSON merge patch of the field, and a
// forced server-side apply of a configuration holding only the field.
// Each client writes its own slice of the Widgets, in turn, so that no
// write conflicts with another's (a 409 fails the benchmark). It reports
// latency quantiles, ops per second and process CPU per op.
func BenchmarkWriteParallel(b *testing.B) {
	const n = 10000
	for _, op := range parallelWrites {
		b.Run("op="+op.name, func(b *testing.B) {
			for _, tr := range transports {
				b.Run("transport="+tr.String(), func(b *testing.B) {
					f := cachedFixture(b, "writes-parallel", n)
					var clients atomic.Int64
					runParallel(b, f, tr, func() func(*client) error {
						lo, hi := ownedWidgets(int(clients.Add(1))-1, n)
						i := lo
						return func(c *client) error {
							if hi <= lo {
								return fmt.Errorf("no Widgets for client: %d clients on %d Widgets", clients.Load(), n)
							}
							err := op.write(c, i)
							if i++; i == hi {
								i = lo
							}
							return err
						}
					})
				})
			}
		})
	}
}

// ownedWidgets is the range [lo, hi) of the n Widgets that the k-th of
// the parallel benchmark's goroutines writes.
func ownedWidgets(k, n int) (lo, hi int) {
	procs := runtime.GOMAXPROCS(0)
	goroutines := (parallelClients + procs - 1) / procs * procs // as setParallelClients asks
	per := n / goroutines
	if k >= goroutines {
		return 0, 0
	}
	return k * per, (k + 1) * per
}

// nextReplicas is the spec.replicas the next write of the i-th Widget
// sets: 1 and 2 in turn (the loaded Widgets have 3), a value the
// Widget's rules accept, different every time.
func (c *client) nextReplicas(i int) int {
	if c.f.replicas[i] == 1 {
		return 2
	}
	return 1
}

// specReplicas is where spec.replicas starts in an encoded Widget, whose
// spec begins with it.
var specReplicas = []byte(`"spec":{"replicas":`)

// getPut GETs the i-th Widget and PUTs it back whole, managedFields and
// status included, with spec.replicas changed (1 and 2 in turn), as a
// client's read-modify-write does; 200 expected from both. It records the
// new resourceVersion and replicas.
func (c *client) getPut(i int) error {
	f := c.f
	if err := c.get(i); err != nil {
		return err
	}
	obj := c.resp.Bytes()
	at := bytes.Index(obj, specReplicas)
	if at < 0 {
		return fmt.Errorf("GET %s: no spec.replicas in %.300s", f.paths[i], obj)
	}
	at += len(specReplicas)
	end := at
	for end < len(obj) && obj[end] >= '0' && obj[end] <= '9' {
		end++
	}
	replicas := 1
	if string(obj[at:end]) == "1" {
		replicas = 2
	}
	c.body = append(c.body[:0], obj[:at]...)
	c.body = strconv.AppendInt(c.body, int64(replicas), 10)
	c.body = append(c.body, obj[end:]...)
	oldRV, _ := resourceVersionOf(obj)
	if err := c.expect(http.StatusOK, "PUT", f.paths[i], c.body); err != nil {
		return err
	}
	rv, ok := resourceVersionOf(c.resp.Bytes())
	if !ok || rv == oldRV {
		return fmt.Errorf("PUT %s: resourceVersion %q after %q: the update wrote nothing", f.paths[i], rv, oldRV)
	}
	f.rvs[i], f.replicas[i] = rv, replicas
	return nil
}
