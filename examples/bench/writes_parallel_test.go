package bench_test

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"strconv"
	"sync"
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
// write conflicts with another's (a 409 fails the benchmark). Before the
// timer runs, every Widget a run will write is written once the same way,
// so that each measured write is one by the manager that wrote the
// object last, as a client that keeps writing its objects makes them: the
// first write of an object by another manager (the loaded Widgets'
// creator, an apply's manager, the other transport's user agent) also
// moves field ownership, which only happens once. It reports latency
// quantiles, ops per second and process CPU per op.
func BenchmarkWriteParallel(b *testing.B) {
	const n = 10000
	for _, op := range parallelWrites {
		b.Run("op="+op.name, func(b *testing.B) {
			for _, tr := range transports {
				warmed := 0 // Widgets of each client written already
				b.Run("transport="+tr.String(), func(b *testing.B) {
					f := cachedFixture(b, "writes-parallel", n)
					if err := warmUp(f, tr, op.write, n, &warmed, b.N); err != nil {
						b.Fatal(err)
					}
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

// parallelGoroutines is the number of goroutines setParallelClients
// makes RunParallel start.
func parallelGoroutines() int {
	procs := runtime.GOMAXPROCS(0)
	return (parallelClients + procs - 1) / procs * procs
}

// ownedWidgets is the range [lo, hi) of the n Widgets that the k-th of
// the parallel benchmark's goroutines writes.
func ownedWidgets(k, n int) (lo, hi int) {
	goroutines := parallelGoroutines()
	per := n / goroutines
	if k >= goroutines {
		return 0, 0
	}
	return k * per, (k + 1) * per
}

// warmUp writes once, with write over transport tr, the Widgets each
// goroutine of a run of ops writes that are not written already: the
// first ones of its range, ops/goroutines of them. *warmed counts those
// per range, and is updated.
func warmUp(f *fixture, tr transport, write func(*client, int) error, n int, warmed *int, ops int) error {
	goroutines := parallelGoroutines()
	lo0, hi0 := ownedWidgets(0, n)
	need := min(hi0-lo0, (ops+goroutines-1)/goroutines)
	if need <= *warmed {
		return nil
	}
	var wg sync.WaitGroup
	errs := make([]error, goroutines)
	for k := range goroutines {
		lo, _ := ownedWidgets(k, n)
		wg.Go(func() {
			c := f.newClient(tr)
			for i := lo + *warmed; i < lo+need && errs[k] == nil; i++ {
				errs[k] = write(c, i)
			}
		})
	}
	wg.Wait()
	*warmed = need
	return errors.Join(errs...)
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
