package prometheus

import (
	"strconv"
	"sync"

	prom "github.com/prometheus/client_golang/prometheus"

	"github.com/kapi-dev/kapi/apiserver"
)

// requestKey is the labels of one finished request's series.
type requestKey struct {
	apiserver.RequestLabels
	code int
}

// requestSeries are the series a finished request adds to: its counter,
// its latency histogram (nil for watches) and its response size
// histogram (nil but for GET and LIST).
type requestSeries struct {
	total   prom.Counter
	latency prom.Observer
	size    prom.Observer
}

// requestSeriesCache keeps the series of each label set seen, so that a
// request costs one map lookup rather than hashing its label values once
// per metric. It holds as many entries as the metrics hold series.
type requestSeriesCache struct {
	mu sync.RWMutex
	m  map[requestKey]*requestSeries
}

// get returns the series of k, making them on first use.
func (c *requestSeriesCache) get(m *Metrics, k *requestKey) *requestSeries {
	c.mu.RLock()
	s := c.m[*k]
	c.mu.RUnlock()
	if s != nil {
		return s
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if s = c.m[*k]; s != nil {
		return s
	}
	l := &k.RequestLabels
	s = &requestSeries{total: m.requests.WithLabelValues(l.Verb, l.DryRun, l.Group, l.Version, l.Resource, l.Subresource,
		l.Scope, l.Component, strconv.Itoa(k.code))}
	if l.Verb != "WATCH" {
		s.latency = m.latency.WithLabelValues(l.Verb, l.DryRun, l.Group, l.Version, l.Resource, l.Subresource, l.Scope, l.Component)
	}
	if l.Verb == "GET" || l.Verb == "LIST" {
		s.size = m.sizes.WithLabelValues(l.Verb, l.Group, l.Version, l.Resource, l.Subresource, l.Scope, l.Component)
	}
	if c.m == nil {
		c.m = make(map[requestKey]*requestSeries)
	}
	c.m[*k] = s
	return s
}

// consistentKey is the labels of one
// apiserver_watch_cache_consistent_read_total series.
type consistentKey struct {
	group, resource   string
	fallback, success bool
}

// consistentReadCache keeps the consistent read counters of each label
// set seen, as requestSeriesCache does for requests.
type consistentReadCache struct {
	mu sync.RWMutex
	m  map[consistentKey]prom.Counter
}

// get returns the counter of k in vec, making it on first use.
func (c *consistentReadCache) get(vec *prom.CounterVec, k consistentKey) prom.Counter {
	c.mu.RLock()
	s := c.m[k]
	c.mu.RUnlock()
	if s != nil {
		return s
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if s = c.m[k]; s != nil {
		return s
	}
	s = vec.WithLabelValues(k.group, k.resource, strconv.FormatBool(k.success), strconv.FormatBool(k.fallback))
	if c.m == nil {
		c.m = make(map[consistentKey]prom.Counter)
	}
	c.m[k] = s
	return s
}
