package prometheus

import (
	"strconv"
	"sync/atomic"

	prom "github.com/prometheus/client_golang/prometheus"

	"github.com/kapi-dev/kapi/apiserver"
)

// requestKey is the labels of one finished request's series.
type requestKey struct {
	apiserver.RequestLabels
	code int
}

// requestCell is one shard's part of a request series: the requests
// counted, and their latency and response size histograms (see observe).
type requestCell struct {
	count      atomic.Uint64
	latency    [len(latencyBounds) + 1]atomic.Uint64
	latencySum atomic.Uint64
	size       [len(sizeBounds) + 1]atomic.Uint64
	sizeSum    atomic.Uint64
	_          [64]byte // keeps the next shard's cell off this one's cache lines
}

// requestSeries is what the requests of one label set add to.
type requestSeries struct {
	latency bool // observed for all but watches
	size    bool // observed for GET and LIST
	cells   []requestCell
}

// requestMetrics keeps apiserver_request_total,
// apiserver_request_duration_seconds and apiserver_response_sizes: a
// request adds to one series, found in one map lookup, in its shard's
// cell; a scrape adds up the cells, and the histograms of the series that
// differ only in labels the histograms do not have (code; dry_run for
// sizes).
type requestMetrics struct {
	total, latency, size *prom.Desc
	shards               *shardPicker
	series               seriesMap[requestKey, requestSeries]
}

func newRequestMetrics(shards *shardPicker) *requestMetrics {
	m := &requestMetrics{
		total: prom.NewDesc("apiserver_request_total",
			"Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.",
			append(requestLabels[:len(requestLabels):len(requestLabels)], "code"), nil),
		latency: prom.NewDesc("apiserver_request_duration_seconds",
			"Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.",
			requestLabels, nil),
		size: prom.NewDesc("apiserver_response_sizes",
			"Response size distribution in bytes for each group, version, verb, resource, subresource, scope and component.",
			sizeLabels, nil),
		shards: shards,
	}
	m.series.make = func(k requestKey, sharded bool) *requestSeries {
		n := 1
		if sharded {
			n = shards.n
		}
		return &requestSeries{latency: k.Verb != "WATCH", size: k.Verb == "GET" || k.Verb == "LIST",
			cells: make([]requestCell, n)}
	}
	return m
}

func (m *requestMetrics) observe(r *apiserver.RequestRecord) {
	k := requestKey{RequestLabels: r.RequestLabels, code: r.Code}
	shard := m.shards.get()
	s := shard.last
	if s == nil || shard.lastKey != k {
		s = m.series.get(k)
		shard.lastKey, shard.last = k, s
	}
	c := &s.cells[int(shard.n)&(len(s.cells)-1)]
	m.shards.put(shard)
	c.count.Add(1)
	if s.latency {
		observe(c.latency[:], &c.latencySum, latencyBounds[:], r.Duration.Seconds())
	}
	if s.size {
		observe(c.size[:], &c.sizeSum, sizeBounds[:], float64(r.ResponseSize))
	}
}

func (m *requestMetrics) Describe(ch chan<- *prom.Desc) {
	ch <- m.total
	ch <- m.latency
	ch <- m.size
}

func (m *requestMetrics) Collect(ch chan<- prom.Metric) {
	var totals []prom.Metric
	latency := make(map[apiserver.RequestLabels]*histogramSum)
	sizes := make(map[apiserver.RequestLabels]*histogramSum)
	m.series.each(func(k requestKey, s *requestSeries) {
		var lat, size *histogramSum
		if s.latency {
			lat = sumOf(latency, k.RequestLabels)
		}
		if s.size {
			l := k.RequestLabels
			l.DryRun = "" // not a label of the sizes
			size = sumOf(sizes, l)
		}
		var n uint64
		for i := range s.cells {
			c := &s.cells[i]
			n += c.count.Load()
			if lat != nil {
				lat.add(c.latency[:], &c.latencySum, latencyBounds[:])
			}
			if size != nil {
				size.add(c.size[:], &c.sizeSum, sizeBounds[:])
			}
		}
		l := &k.RequestLabels
		totals = append(totals, prom.MustNewConstMetric(m.total, prom.CounterValue, float64(n),
			l.Verb, l.DryRun, l.Group, l.Version, l.Resource, l.Subresource, l.Scope, l.Component, strconv.Itoa(k.code)))
	})
	for _, t := range totals {
		ch <- t
	}
	for l, h := range latency {
		ch <- prom.MustNewConstHistogram(m.latency, h.count, h.sum, h.cum,
			l.Verb, l.DryRun, l.Group, l.Version, l.Resource, l.Subresource, l.Scope, l.Component)
	}
	for l, h := range sizes {
		ch <- prom.MustNewConstHistogram(m.size, h.count, h.sum, h.cum,
			l.Verb, l.Group, l.Version, l.Resource, l.Subresource, l.Scope, l.Component)
	}
}

// sumOf returns the sum kept for l in sums, made on first use.
func sumOf(sums map[apiserver.RequestLabels]*histogramSum, l apiserver.RequestLabels) *histogramSum {
	h := sums[l]
	if h == nil {
		h = new(histogramSum)
		sums[l] = h
	}
	return h
}

// consistentKey is the labels of one
// apiserver_watch_cache_consistent_read_total series.
type consistentKey struct {
	group, resource   string
	fallback, success bool
}

// consistentReads keeps apiserver_watch_cache_consistent_read_total:
// every GET and LIST without a resourceVersion adds to it, so it is
// sharded as the request metrics are.
type consistentReads struct {
	desc   *prom.Desc
	shards *shardPicker
	series seriesMap[consistentKey, shardedCounter]
}

func newConsistentReads(shards *shardPicker) *consistentReads {
	c := &consistentReads{
		desc: prom.NewDesc("apiserver_watch_cache_consistent_read_total", "Counter for consistent reads from cache.",
			[]string{"group", "resource", "success", "fallback"}, nil),
		shards: shards,
	}
	c.series.make = func(_ consistentKey, sharded bool) *shardedCounter {
		n := 1
		if sharded {
			n = shards.n
		}
		s := make(shardedCounter, n)
		return &s
	}
	return c
}

func (c *consistentReads) add(k consistentKey) {
	shard := c.shards.get()
	s := shard.lastReads
	if s == nil || shard.lastRead != k {
		s = c.series.get(k)
		shard.lastRead, shard.lastReads = k, s
	}
	s.add(shard.n)
	c.shards.put(shard)
}

func (c *consistentReads) Describe(ch chan<- *prom.Desc) { ch <- c.desc }

func (c *consistentReads) Collect(ch chan<- prom.Metric) {
	var out []prom.Metric
	c.series.each(func(k consistentKey, s *shardedCounter) {
		out = append(out, prom.MustNewConstMetric(c.desc, prom.CounterValue, s.value(),
			k.group, k.resource, strconv.FormatBool(k.success), strconv.FormatBool(k.fallback)))
	})
	for _, m := range out {
		ch <- m
	}
}
