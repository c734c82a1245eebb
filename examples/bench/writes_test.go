package bench_test

import (
	"fmt"
	"net/http"
	"strconv"
	"testing"
)

// BenchmarkWrite changes spec.replicas of a Widget (cycling through 1,000)
// in process, once per kind of write: a PUT of the whole object with its
// resourceVersion, a JSON merge patch of the field, and a server-side apply
// of a configuration holding only the field (forced, by one manager). Every
// write changes the value, so each one is stored and tracked in
// managedFields; the ratios between the three are the cost of the patch
// mechanism and of the field manager's apply over its update.
func BenchmarkWrite(b *testing.B) {
	ops := []struct {
		name  string
		write func(c *client, i, replicas int) error
	}{
		{"update", func(c *client, i, _ int) error { return c.update(i) }},
		{"merge-patch", (*client).mergePatchReplicas},
		{"apply", (*client).applyReplicas},
	}
	for _, op := range ops {
		b.Run("op="+op.name, func(b *testing.B) {
			c := cachedFixture(b, "writes", updateObjects).newClient(inProcess)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				k := i % updateObjects
				// 1 and 2 in turn (the loaded Widgets have 3): a value
				// the Widget's rules accept, different every time.
				replicas := 1
				if c.f.replicas[k] == 1 {
					replicas = 2
				}
				if err := op.write(c, k, replicas); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// patch sends a PATCH of the given type to the i-th Widget and records
// its new resourceVersion and replicas.
func (c *client) patch(i, replicas int, query, contentType string, body []byte) error {
	f := c.f
	code, err := c.send("PATCH", f.paths[i]+query, contentType, body)
	if err != nil {
		return fmt.Errorf("PATCH %s (%s): %v", f.paths[i], contentType, err)
	}
	if code != http.StatusOK {
		return fmt.Errorf("PATCH %s (%s): %d %s", f.paths[i], contentType, code, c.resp.Bytes())
	}
	rv, ok := resourceVersionOf(c.resp.Bytes())
	if !ok || rv == f.rvs[i] {
		return fmt.Errorf("PATCH %s (%s): resourceVersion %q after %q: the patch wrote nothing", f.paths[i], contentType, rv, f.rvs[i])
	}
	f.rvs[i], f.replicas[i] = rv, replicas
	return nil
}

func (c *client) mergePatchReplicas(i, replicas int) error {
	c.body = append(c.body[:0], `{"spec":{"replicas":`...)
	c.body = strconv.AppendInt(c.body, int64(replicas), 10)
	c.body = append(c.body, "}}"...)
	return c.patch(i, replicas, "", "application/merge-patch+json", c.body)
}

func (c *client) applyReplicas(i, replicas int) error {
	c.body = append(c.body[:0], `{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"`...)
	c.body = append(c.body, c.f.names[i]...)
	c.body = append(c.body, `"},"spec":{"replicas":`...)
	c.body = strconv.AppendInt(c.body, int64(replicas), 10)
	c.body = append(c.body, "}}"...)
	return c.patch(i, replicas, "?fieldManager=bench-apply&force=true", "application/apply-patch+yaml", c.body)
}
