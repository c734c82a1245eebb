package bench_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/examples/bench"
	"github.com/kapi-dev/kapi/examples/widgets/api"
)

// The benchmarks assume Widgets of about 1.9 KB of JSON.
const minWidgetBytes, maxWidgetBytes = 1800, 2000

func TestWidgetSize(t *testing.T) {
	b := bench.WidgetJSON(bench.Name("widget", 1234))
	if n := len(b); n < minWidgetBytes || n > maxWidgetBytes {
		t.Errorf("Widget JSON is %d bytes, want %d..%d", n, minWidgetBytes, maxWidgetBytes)
	}
	if a, b := bench.Name("widget", 0), bench.Name("widget", 999999999); len(a) != len(b) || a != "widget-000000000" || b != "widget-999999999" {
		t.Errorf("names %q and %q, want widget-000000000 and widget-999999999", a, b)
	}
}

func TestTemplates(t *testing.T) {
	name := bench.Name("create", 42)
	if got, want := string(createTemplate.fill(nil, []byte(name))), string(bench.WidgetJSON(name)); got != want {
		t.Errorf("create body:\n got %s\nwant %s", got, want)
	}
	var w api.Widget
	if err := json.Unmarshal(updateTemplate.fill(nil, []byte(name), []byte("77"), []byte("2")), &w); err != nil {
		t.Fatal(err)
	}
	if w.Name != name || w.ResourceVersion != "77" || *w.Spec.Replicas != 2 || w.Status.Selector == "" || len(w.Labels) == 0 {
		t.Errorf("update body decodes to %+v", w)
	}
}

// TestBenchmarkRequests checks that every request the benchmarks send
// succeeds, over both transports, so that they cannot measure error
// responses. (The benchmarks also check every status code.)
func TestBenchmarkRequests(t *testing.T) {
	testSizes := sizes
	if testing.Short() {
		testSizes = sizes[:1]
	}
	for _, tr := range transports {
		t.Run(tr.String(), func(t *testing.T) {
			t.Run("create", func(t *testing.T) {
				c := freshFixture(t).newClient(tr)
				if err := c.create("create", 0); err != nil {
					t.Fatal(err)
				}
				w := decodeWidget(t, c)
				if w.Name != bench.Name("create", 0) || w.ResourceVersion == "" || w.UID == "" {
					t.Errorf("created %s, resourceVersion %q, uid %q", w.Name, w.ResourceVersion, w.UID)
				}
				if err := c.expect(http.StatusOK, "GET", bench.ObjectPath(w.Name), nil); err != nil {
					t.Error(err)
				}
				// The same name again is a 409, and create reports it.
				if err := c.create("create", 0); err == nil {
					t.Error("second create of the same name succeeded")
				}
			})
			t.Run("createParallel", func(t *testing.T) {
				f := freshFixture(t)
				const clients, each = parallelClients, 20
				var wg sync.WaitGroup
				for g := range clients {
					c := f.newClient(tr)
					wg.Go(func() {
						for i := range each {
							if err := c.create("create", g*each+i); err != nil {
								t.Error(err)
								return
							}
						}
					})
				}
				wg.Wait()
				c := f.newClient(tr)
				if err := c.list(); err != nil {
					t.Fatal(err)
				}
				if n := listItems(t, c); n != clients*each {
					t.Errorf("list has %d items after %d creates", n, clients*each)
				}
			})
			for _, n := range testSizes {
				t.Run(objects(n), func(t *testing.T) {
					f := preloaded(t, n)
					t.Logf("loaded %d widgets in %v", n, f.loadTime)
					c := f.newClient(tr)
					loaded := selectedWidget()("x") // the shape -bench.widget loads
					for _, i := range []int{0, n / 2, n - 1} {
						if err := c.get(i); err != nil {
							t.Fatal(err)
						}
						size := c.resp.Len()
						w := decodeWidget(t, c)
						if w.Name != f.names[i] || len(w.Status.Conditions) != len(loaded.Status.Conditions) || len(w.Spec.Ports) != len(loaded.Spec.Ports) {
							t.Errorf("GET %s: got %s with %d conditions, %d ports", f.paths[i], w.Name, len(w.Status.Conditions), len(w.Spec.Ports))
						}
						if i == 0 {
							t.Logf("a stored Widget is %d bytes of JSON", size)
						}
					}
					if err := c.expect(http.StatusOK, "GET", bench.ObjectPath("missing"), nil); err == nil {
						t.Error("GET of a missing widget succeeded")
					}
					if err := c.list(); err != nil {
						t.Fatal(err)
					}
					t.Logf("the list is %d bytes", c.resp.Len())
					if got := listItems(t, c); got != n {
						t.Errorf("list has %d items, want %d", got, n)
					}
				})
			}
			t.Run("update", func(t *testing.T) {
				f := updateFixture(t)
				c := f.newClient(tr)
				for range 2 { // twice: the second sends the resourceVersion the first returned
					rv := f.rvs[0]
					if err := c.update(0); err != nil {
						t.Fatal(err)
					}
					w := decodeWidget(t, c)
					if w.ResourceVersion == rv || w.ResourceVersion != f.rvs[0] || int(*w.Spec.Replicas) != f.replicas[0] || len(w.Status.Conditions) != len(selectedWidget()("x").Status.Conditions) {
						t.Errorf("after update: resourceVersion %s (was %s), replicas %d (want %d), %d conditions",
							w.ResourceVersion, rv, *w.Spec.Replicas, f.replicas[0], len(w.Status.Conditions))
					}
				}
				// A stale resourceVersion is a 409, and update reports it.
				current := f.rvs[0]
				f.rvs[0] = strconv.Itoa(mustAtoi(t, current) - 1)
				if err := c.update(0); err == nil {
					t.Error("update with a stale resourceVersion succeeded")
				}
				f.rvs[0] = current
			})
		})
	}
}

func decodeWidget(t *testing.T, c *client) api.Widget {
	t.Helper()
	var w api.Widget
	if err := json.Unmarshal(c.resp.Bytes(), &w); err != nil {
		t.Fatalf("decoding %s: %v", c.resp.Bytes(), err)
	}
	return w
}

func listItems(t *testing.T, c *client) int {
	t.Helper()
	var l struct {
		Kind  string            `json:"kind"`
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(c.resp.Bytes(), &l); err != nil {
		t.Fatal(err)
	}
	if l.Kind != "WidgetList" {
		t.Errorf("list kind %q", l.Kind)
	}
	return len(l.Items)
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestHistogram(t *testing.T) {
	for _, ns := range []int64{0, 1, 15, 16, 17, 100, 1000, 12345, 999999, 5e6, 1e9, 1 << 40} {
		i := bucketOf(ns)
		if ub := upperBound(i); ub < ns || (i > 0 && upperBound(i-1) >= ns) {
			t.Errorf("%d ns in bucket %d with bounds (%d, %d]", ns, i, upperBound(i-1), ub)
		}
	}
	var h histogram
	for i := range 100 {
		h.record(time.Duration(i+1) * time.Millisecond)
	}
	if p50, p99 := h.quantile(0.5), h.quantile(0.99); p50 < 50*time.Millisecond || p50 > 57*time.Millisecond || p99 < 99*time.Millisecond || p99 > 112*time.Millisecond {
		t.Errorf("p50 %v, p99 %v", p50, p99)
	}
}

// TestStoredWidgetSize checks the size of the loaded Widgets as the server
// stores and serves them (managedFields, status and the server's metadata
// included) for each -bench.widget: the small one must be the size of the
// issue's objects, about 1.9 KB, and the standard one twice that.
func TestStoredWidgetSize(t *testing.T) {
	for _, tc := range []struct {
		size     string
		min, max int
	}{
		{size: "standard", min: 3700, max: 4000},
		{size: "small", min: 1800, max: 2000},
	} {
		t.Run(tc.size, func(t *testing.T) {
			tmpl, err := loadTemplateOf(tc.size)
			if err != nil {
				t.Fatal(err)
			}
			c := freshFixture(t).newClient(inProcess)
			name := bench.Name("sized", 7)
			body := tmpl.fill(nil, []byte(name), shardOf(7), colorOf(7))
			if err := c.expect(http.StatusCreated, "POST", bench.CollectionPath, body); err != nil {
				t.Fatal(err)
			}
			rv, ok := resourceVersionOf(c.resp.Bytes())
			if !ok {
				t.Fatalf("no resourceVersion in %s", c.resp.Bytes())
			}
			if err := c.expect(http.StatusOK, "PUT", bench.ObjectPath(name)+"/status", withResourceVersion(body, rv)); err != nil {
				t.Fatal(err)
			}
			if err := c.expect(http.StatusOK, "GET", bench.ObjectPath(name), nil); err != nil {
				t.Fatal(err)
			}
			if n := c.resp.Len(); n < tc.min || n > tc.max {
				t.Errorf("stored Widget is %d bytes as served, want %d..%d", n, tc.min, tc.max)
			}
			if w := decodeWidget(t, c); len(w.ManagedFields) != 2 || len(w.Status.Conditions) == 0 {
				t.Errorf("stored Widget has %d managedFields entries and %d conditions, want 2 and some", len(w.ManagedFields), len(w.Status.Conditions))
			}
		})
	}
	if _, err := loadTemplateOf("huge"); err == nil {
		t.Error("-bench.widget huge: no error")
	}
}
