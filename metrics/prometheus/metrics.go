package prometheus

import (
	"errors"
	"strconv"
	"sync/atomic"
	"time"

	prom "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/kapi-dev/kapi/apiserver"
)

// latencyBounds are kube-apiserver's buckets of
// apiserver_request_duration_seconds and etcd_request_duration_seconds.
var latencyBounds = [...]float64{0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3,
	4, 5, 6, 8, 10, 15, 20, 30, 45, 60}

// sizeBounds are kube-apiserver's buckets of apiserver_response_sizes:
// 1000 to 10^9 bytes, by powers of ten.
var sizeBounds = [...]float64{1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9}

var (
	requestLabels = []string{"verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component"}
	sizeLabels    = []string{"verb", "group", "version", "resource", "subresource", "scope", "component"}
	abortLabels   = []string{"verb", "group", "version", "resource", "subresource", "scope"}
	etcdLabels    = []string{"operation", "group", "resource"}
	gvr           = []string{"group", "version", "resource"}
)

// Metrics is an [apiserver.Observer] (and an etcd backend's observer)
// that keeps kube-apiserver's metrics. Make it with [New].
type Metrics struct {
	requests     *requestMetrics
	longRunning  *prom.GaugeVec
	watchers     *prom.GaugeVec
	watchEvents  *prom.CounterVec
	eventSizes   *prom.HistogramVec
	aborts       *prom.CounterVec
	terminations *prom.CounterVec
	rejected     *prom.CounterVec
	etcdLatency  *prom.HistogramVec
	etcdRequests *prom.CounterVec
	etcdErrors   *prom.CounterVec
	consistent   *consistentReads

	inflight inflightCollector
	state    stateCollector
}

var _ apiserver.Observer = (*Metrics)(nil)

// New registers kapi's metrics, and the Go runtime and process
// collectors unless reg has them already, on reg.
func New(reg prom.Registerer) (*Metrics, error) {
	shards := newShardPicker()
	m := &Metrics{
		requests: newRequestMetrics(shards),
		longRunning: prom.NewGaugeVec(prom.GaugeOpts{Name: "apiserver_longrunning_requests",
			Help: "Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component."}, sizeLabels),
		watchers: prom.NewGaugeVec(prom.GaugeOpts{Name: "apiserver_registered_watchers",
			Help: "Number of currently registered watchers for a given resources"}, []string{"group", "version", "kind"}),
		watchEvents: prom.NewCounterVec(prom.CounterOpts{Name: "apiserver_watch_events_total",
			Help: "Number of events sent in watch clients"}, gvr),
		eventSizes: prom.NewHistogramVec(prom.HistogramOpts{Name: "apiserver_watch_events_sizes",
			Help: "Watch event size distribution in bytes", Buckets: prom.ExponentialBuckets(1024, 2, 8)}, gvr),
		aborts: prom.NewCounterVec(prom.CounterOpts{Name: "apiserver_request_aborts_total",
			Help: "Number of requests which apiserver aborted possibly due to a timeout, for each group, version, verb, resource, subresource and scope"}, abortLabels),
		terminations: prom.NewCounterVec(prom.CounterOpts{Name: "apiserver_request_terminations_total",
			Help: "Number of requests which apiserver terminated in self-defense."}, append(sizeLabels, "code")),
		rejected: prom.NewCounterVec(prom.CounterOpts{Name: "apiserver_flowcontrol_rejected_requests_total",
			Help: "Number of requests rejected by API Priority and Fairness subsystem"}, []string{"flow_schema", "priority_level", "reason"}),
		etcdLatency: prom.NewHistogramVec(prom.HistogramOpts{Name: "etcd_request_duration_seconds",
			Help: "Etcd request latency in seconds for each operation and object type.", Buckets: latencyBounds[:]}, etcdLabels),
		etcdRequests: prom.NewCounterVec(prom.CounterOpts{Name: "etcd_requests_total",
			Help: "Etcd request counts for each operation and object type."}, etcdLabels),
		etcdErrors: prom.NewCounterVec(prom.CounterOpts{Name: "etcd_request_errors_total",
			Help: "Etcd failed request counts for each operation and object type."}, etcdLabels),
		consistent: newConsistentReads(shards),
	}
	m.inflight.desc = prom.NewDesc("apiserver_current_inflight_requests",
		"Maximal number of currently used inflight request limit of this apiserver per request kind in last second.", []string{"request_kind"}, nil)
	m.state.init()
	for _, c := range []prom.Collector{m.requests, m.longRunning, m.watchers, m.watchEvents,
		m.eventSizes, m.aborts, m.terminations, m.rejected, m.etcdLatency, m.etcdRequests, m.etcdErrors, m.consistent, &m.inflight, &m.state} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	for _, c := range []prom.Collector{collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})} {
		if err := reg.Register(c); err != nil && !errors.As(err, new(prom.AlreadyRegisteredError)) {
			return nil, err
		}
	}
	return m, nil
}

// ObserveRequest counts a finished request.
func (m *Metrics) ObserveRequest(r *apiserver.RequestRecord) {
	m.requests.observe(r)
	if r.Rejected == "" && !r.TimedOut && !r.Aborted {
		return
	}
	code := strconv.Itoa(r.Code)
	if r.Rejected != "" || r.TimedOut {
		m.terminations.WithLabelValues(r.Verb, r.Group, r.Version, r.Resource, r.Subresource, r.Scope, r.Component, code).Inc()
	}
	if r.Rejected != "" {
		m.rejected.WithLabelValues("per-user", r.RequestKind, r.Rejected).Inc()
	}
	if r.Aborted {
		m.aborts.WithLabelValues(r.Verb, r.Group, r.Version, r.Resource, r.Subresource, r.Scope).Inc()
	}
}

// ObserveInflight notes the seats in use of one kind.
func (m *Metrics) ObserveInflight(kind string, n int) { m.inflight.set(kind, n) }

// ObserveLongRunning counts open watches.
func (m *Metrics) ObserveLongRunning(l *apiserver.RequestLabels, delta int) {
	m.longRunning.WithLabelValues(l.Verb, l.Group, l.Version, l.Resource, l.Subresource, l.Scope, l.Component).Add(float64(delta))
}

// ObserveWatchers counts registered watchers of a kind.
func (m *Metrics) ObserveWatchers(group, version, kind string, delta int) {
	m.watchers.WithLabelValues(group, version, kind).Add(float64(delta))
}

// ObserveWatchEvent counts an event sent to a watcher, and its size.
func (m *Metrics) ObserveWatchEvent(group, version, resource string, size int) {
	m.watchEvents.WithLabelValues(group, version, resource).Inc()
	m.eventSizes.WithLabelValues(group, version, resource).Observe(float64(size))
}

// ObserveConsistentRead counts a consistent read, and whether it fell
// back to the store. Every GET and LIST without a resourceVersion is one.
func (m *Metrics) ObserveConsistentRead(group, resource string, fallback, success bool) {
	m.consistent.add(consistentKey{group, resource, fallback, success})
}

// ObserveResources takes the function the state gauges are read from at
// each scrape.
func (m *Metrics) ObserveResources(read func() []apiserver.ResourceStats) {
	m.state.read.Store(&read)
}

// ObserveEtcdRequest records one etcd request of the etcd backend.
func (m *Metrics) ObserveEtcdRequest(operation, group, resource string, d time.Duration, err error) {
	m.etcdLatency.WithLabelValues(operation, group, resource).Observe(d.Seconds())
	m.etcdRequests.WithLabelValues(operation, group, resource).Inc()
	if err != nil {
		m.etcdErrors.WithLabelValues(operation, group, resource).Inc()
	}
}

// inflightCollector reports, per request kind, the most seats in use
// since the last scrape (kube-apiserver reports the most in the last
// second), so that short bursts between scrapes are seen. Every request
// under a limit sets it twice: it takes no lock.
type inflightCollector struct {
	desc               *prom.Desc
	readOnly, mutating seats
}

// seats is one kind's seats in use, and the most since the last scrape.
type seats struct {
	cur, peak atomic.Int64
	_         [112]byte // the other kind's seats are set by other requests
}

func (c *inflightCollector) seats(kind string) *seats {
	if kind == "mutating" {
		return &c.mutating
	}
	return &c.readOnly
}

func (c *inflightCollector) set(kind string, n int) {
	s := c.seats(kind)
	s.cur.Store(int64(n))
	for {
		p := s.peak.Load()
		if int64(n) <= p || s.peak.CompareAndSwap(p, int64(n)) {
			return
		}
	}
}

func (c *inflightCollector) Describe(ch chan<- *prom.Desc) { ch <- c.desc }

func (c *inflightCollector) Collect(ch chan<- prom.Metric) {
	for _, kind := range []string{"readOnly", "mutating"} {
		s := c.seats(kind)
		// The next interval's peak starts from the seats in use now.
		peak := s.peak.Swap(s.cur.Load())
		ch <- prom.MustNewConstMetric(c.desc, prom.GaugeValue, float64(peak), kind)
	}
}

// stateCollector reads the resources' state gauges at scrape time.
type stateCollector struct {
	read                    atomic.Pointer[func() []apiserver.ResourceStats]
	objects, capacity, revs *prom.Desc
}

func (c *stateCollector) init() {
	c.objects = prom.NewDesc("apiserver_storage_objects",
		"Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.", []string{"resource"}, nil)
	c.capacity = prom.NewDesc("watch_cache_capacity", "Total capacity of watch cache broken by resource type.", []string{"group", "resource"}, nil)
	c.revs = prom.NewDesc("apiserver_watch_cache_resource_version", "Current resource version of watch cache broken by resource type.",
		[]string{"group", "resource"}, nil)
}

func (c *stateCollector) Describe(ch chan<- *prom.Desc) {
	ch <- c.objects
	ch <- c.capacity
	ch <- c.revs
}

func (c *stateCollector) Collect(ch chan<- prom.Metric) {
	read := c.read.Load()
	if read == nil {
		return
	}
	seen := make(map[string]bool)
	for _, r := range (*read)() {
		name := r.Resource
		if r.Group != "" {
			name += "." + r.Group
		}
		if seen[name] { // the same resource in another version: one cache each, the same objects
			continue
		}
		seen[name] = true
		ch <- prom.MustNewConstMetric(c.objects, prom.GaugeValue, float64(r.Objects), name)
		ch <- prom.MustNewConstMetric(c.capacity, prom.GaugeValue, float64(r.WindowEvents), r.Group, r.Resource)
		ch <- prom.MustNewConstMetric(c.revs, prom.GaugeValue, float64(r.Revision), r.Group, r.Resource)
	}
}
