package prometheus_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"time"

	prom "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/meta"
	kapiprom "github.com/kapi-dev/kapi/metrics/prometheus"
)

type widget struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            struct {
		Color string `json:"color,omitempty"`
	} `json:"spec,omitempty"`
}

const widgets = "/apis/stable.example.com/v1/namespaces/default/widgets"

// serve starts a kapi server observed by a fresh registry's Metrics.
func serve(t *testing.T, opts apiserver.Options) (*prom.Registry, *kapiprom.Metrics, *httptest.Server) {
	t.Helper()
	reg := prom.NewRegistry()
	m, err := kapiprom.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	opts.Observer = m
	srv := apiserver.New(opts)
	srv.Register(apiserver.Kind{Group: "stable.example.com", Version: "v1", Kind: "Widget", Resource: "widgets",
		Namespaced: true, New: func() meta.Object { return &widget{} }})
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	t.Cleanup(srv.Close)
	return reg, m, ts
}

func request(t *testing.T, method, url, body string) int {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return 0
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

func create(t *testing.T, base, query, name string) int {
	t.Helper()
	return request(t, "POST", base+widgets+query, `{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"`+name+`"}}`)
}

// scrape reads /metrics as Prometheus would and parses it with
// Prometheus' own text parser.
func scrape(t *testing.T, reg *prom.Registry) map[string]*dto.MetricFamily {
	t.Helper()
	ts := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	defer ts.Close()
	resp, err := http.Get(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return fams
}

// series finds the series of a family whose labels include want.
func series(t *testing.T, fams map[string]*dto.MetricFamily, name string, want map[string]string) *dto.Metric {
	t.Helper()
	f, ok := fams[name]
	if !ok {
		t.Errorf("no metric %s", name)
		return nil
	}
	for _, m := range f.Metric {
		if labelsInclude(m, want) {
			return m
		}
	}
	t.Errorf("%s: no series with %v among %v", name, want, f.Metric)
	return nil
}

// labelsInclude reports whether a series carries every label of want.
func labelsInclude(m *dto.Metric, want map[string]string) bool {
	got := make(map[string]string, len(m.Label))
	for _, l := range m.Label {
		got[l.GetName()] = l.GetValue()
	}
	for k, v := range want {
		if got[k] != v {
			return false
		}
	}
	return true
}

// labelNames lists a family's label names.
func labelNames(f *dto.MetricFamily) string {
	var names []string
	for _, l := range f.Metric[0].Label {
		names = append(names, l.GetName())
	}
	sort.Strings(names)
	return strings.Join(names, ",")
}

// TestScrape drives requests of every kind through an observed server
// (creates, a dry run, gets, lists, a watch, a 429, a 504) and checks
// each metric kube-apiserver dashboards read: its name, its label names,
// the series the requests made and, for histograms, kube-apiserver's
// buckets.
func TestScrape(t *testing.T) {
	hold := make(chan struct{})
	admit := func(ctx context.Context, r *apiserver.AdmissionRequest) error {
		if strings.HasPrefix(r.Name, "block") {
			select {
			case <-hold:
			case <-ctx.Done():
			}
		}
		return nil
	}
	reg, m, ts := serve(t, apiserver.Options{MaxMutatingRequestsInFlight: 1, InFlightQueueLength: 1,
		InFlightQueueTimeout: 50 * time.Millisecond, MutatingAdmission: []apiserver.AdmissionFunc{admit}})
	base := ts.URL

	resp, err := http.Get(base + widgets + "?watch=true")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	lines := bufio.NewScanner(resp.Body)
	if create(t, base, "", "a") != 201 || create(t, base, "?dryRun=All", "b") != 201 {
		t.Fatal("create failed")
	}
	if !lines.Scan() {
		t.Fatal("no watch event")
	}
	request(t, "GET", base+widgets+"/a", "")
	request(t, "GET", base+widgets, "")
	request(t, "GET", base+"/apis/stable.example.com/v1/widgets", "")
	done := make(chan int)
	go func() { done <- create(t, base, "?timeout=2s", "block-1") }() // holds the only seat
	time.Sleep(100 * time.Millisecond)
	go func() { done <- create(t, base, "", "queued") }()
	time.Sleep(20 * time.Millisecond)
	if c := create(t, base, "", "over"); c != 429 {
		t.Errorf("over the limit: %d", c)
	}
	codes := []int{<-done, <-done}
	sort.Ints(codes)
	if codes[0] != 429 || codes[1] != 504 {
		t.Errorf("queued and held writes: %v, want 429 and 504", codes)
	}
	close(hold)
	// An abort (the deadline after the response started) and the etcd
	// backend's requests are reported by the server and the etcd store;
	// here they go straight to the adapter.
	m.ObserveRequest(&apiserver.RequestRecord{RequestLabels: apiserver.RequestLabels{Verb: "LIST", Group: "stable.example.com",
		Version: "v1", Resource: "widgets", Scope: "cluster", Component: "apiserver"}, Code: 200, Aborted: true})
	m.ObserveEtcdRequest("get", "stable.example.com", "widgets", 3*time.Millisecond, nil)

	// A request is observed after its response is written, so the
	// client can read the last answers before the server has counted
	// them: scrape until the counted series agree or time runs out.
	fams := scrape(t, reg)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); fams = scrape(t, reg) {
		if len(scrapeMismatches(fams)) == 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	families := []struct {
		name, labels string
		want         map[string]string
		buckets      []float64
	}{
		{"apiserver_request_total", "code,component,dry_run,group,resource,scope,subresource,verb,version",
			map[string]string{"verb": "POST", "dry_run": "All", "group": "stable.example.com", "version": "v1", "resource": "widgets",
				"subresource": "", "scope": "resource", "component": "apiserver", "code": "201"}, nil},
		{"apiserver_request_duration_seconds", "component,dry_run,group,resource,scope,subresource,verb,version",
			map[string]string{"verb": "GET", "scope": "resource", "resource": "widgets"}, []float64{0.005, 0.025, 0.05, 0.1, 0.2,
				0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60}},
		{"apiserver_response_sizes", "component,group,resource,scope,subresource,verb,version",
			map[string]string{"verb": "LIST", "scope": "namespace"}, []float64{1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9}},
		{"apiserver_current_inflight_requests", "request_kind", map[string]string{"request_kind": "mutating"}, nil},
		{"apiserver_longrunning_requests", "component,group,resource,scope,subresource,verb,version",
			map[string]string{"verb": "WATCH", "scope": "namespace", "resource": "widgets"}, nil},
		{"apiserver_registered_watchers", "group,kind,version", map[string]string{"kind": "Widget", "group": "stable.example.com"}, nil},
		{"apiserver_watch_events_total", "group,resource,version", map[string]string{"resource": "widgets"}, nil},
		{"apiserver_watch_events_sizes", "group,resource,version", map[string]string{"resource": "widgets"},
			[]float64{1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072}},
		{"apiserver_storage_objects", "resource", map[string]string{"resource": "widgets.stable.example.com"}, nil},
		{"apiserver_request_aborts_total", "group,resource,scope,subresource,verb,version", map[string]string{"verb": "LIST"}, nil},
		{"apiserver_request_terminations_total", "code,component,group,resource,scope,subresource,verb,version",
			map[string]string{"verb": "POST", "code": "429"}, nil},
		{"apiserver_flowcontrol_rejected_requests_total", "flow_schema,priority_level,reason",
			map[string]string{"priority_level": "mutating", "reason": "queue-full"}, nil},
		{"watch_cache_capacity", "group,resource", map[string]string{"resource": "widgets"}, nil},
		{"apiserver_watch_cache_resource_version", "group,resource", map[string]string{"resource": "widgets"}, nil},
		{"apiserver_watch_cache_consistent_read_total", "fallback,group,resource,success",
			map[string]string{"group": "stable.example.com", "resource": "widgets", "fallback": "false", "success": "true"}, nil},
		{"etcd_request_duration_seconds", "group,operation,resource", map[string]string{"operation": "get"}, []float64{0.005, 0.025,
			0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60}},
	}
	for _, f := range families {
		fam, ok := fams[f.name]
		if !ok {
			t.Errorf("no metric %s", f.name)
			continue
		}
		if got := labelNames(fam); got != f.labels {
			t.Errorf("%s: labels %s, want %s", f.name, got, f.labels)
		}
		s := series(t, fams, f.name, f.want)
		if s == nil || f.buckets == nil {
			continue
		}
		var got []float64
		for _, b := range s.Histogram.Bucket {
			if !math.IsInf(b.GetUpperBound(), 1) {
				got = append(got, b.GetUpperBound())
			}
		}
		if len(got) != len(f.buckets) {
			t.Errorf("%s: buckets %v, want %v", f.name, got, f.buckets)
		}
		for i := range got {
			if i < len(f.buckets) && got[i] != f.buckets[i] {
				t.Errorf("%s: buckets %v, want %v", f.name, got, f.buckets)
				break
			}
		}
	}
	for _, m := range scrapeMismatches(fams) {
		t.Error(m)
	}
	for _, name := range []string{"go_goroutines", "process_resident_memory_bytes"} {
		if _, ok := fams[name]; !ok {
			t.Errorf("no runtime metric %s", name)
		}
	}
}

// scrapeCounts are the values TestScrape's requests leave behind.
var scrapeCounts = []struct {
	name  string
	want  map[string]string
	value float64
}{
	{"apiserver_request_total", map[string]string{"verb": "POST", "dry_run": "", "code": "201"}, 1},
	{"apiserver_request_total", map[string]string{"verb": "POST", "code": "429"}, 2},
	{"apiserver_request_total", map[string]string{"verb": "POST", "code": "504"}, 1},
	{"apiserver_request_total", map[string]string{"verb": "LIST", "scope": "cluster", "code": "200"}, 2}, // one list, and the aborted one
	{"apiserver_request_terminations_total", map[string]string{"verb": "POST", "code": "504"}, 1},
	{"apiserver_flowcontrol_rejected_requests_total", map[string]string{"reason": "time-out"}, 1},
	{"apiserver_longrunning_requests", map[string]string{"verb": "WATCH"}, 1},
	{"apiserver_registered_watchers", map[string]string{"kind": "Widget"}, 1},
	{"apiserver_watch_events_total", map[string]string{"resource": "widgets"}, 1},
	{"apiserver_storage_objects", map[string]string{"resource": "widgets.stable.example.com"}, 1},
	{"apiserver_current_inflight_requests", map[string]string{"request_kind": "mutating"}, 1},
}

// scrapeMismatches lists the expected series a scrape lacks or counts
// differently.
func scrapeMismatches(fams map[string]*dto.MetricFamily) []string {
	var out []string
	for _, c := range scrapeCounts {
		var found *dto.Metric
		if f, ok := fams[c.name]; ok {
			for _, m := range f.Metric {
				if labelsInclude(m, c.want) {
					found = m
					break
				}
			}
		}
		if found == nil {
			out = append(out, fmt.Sprintf("%s: no series with %v", c.name, c.want))
			continue
		}
		if v := found.GetCounter().GetValue() + found.GetGauge().GetValue(); v != c.value {
			out = append(out, fmt.Sprintf("%s%v = %v, want %v", c.name, c.want, v, c.value))
		}
	}
	return out
}

// TestOwnRegistry: two servers' metrics live on two registries; nothing
// is registered globally.
func TestOwnRegistry(t *testing.T) {
	before, err := prom.DefaultGatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := kapiprom.New(prom.NewRegistry()); err != nil {
			t.Fatal(err)
		}
	}
	after, _ := prom.DefaultGatherer.Gather()
	if len(after) != len(before) {
		t.Errorf("the default registry went from %d to %d families", len(before), len(after))
	}
	reg := prom.NewRegistry()
	kapiprom.New(reg)
	if _, err := kapiprom.New(reg); err == nil {
		t.Error("registering twice on one registry succeeded")
	}
}

// TestObserveRequestSeries: requests with the same labels add to the same
// series, and one with other labels or another code to its own; once a
// label set has been seen, counting a request allocates nothing.
func TestObserveRequestSeries(t *testing.T) {
	reg := prom.NewRegistry()
	m, err := kapiprom.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	get := &apiserver.RequestRecord{RequestLabels: apiserver.RequestLabels{Verb: "GET", Group: "stable.example.com",
		Version: "v1", Resource: "widgets", Scope: "resource", Component: "apiserver"},
		Code: 200, Duration: 3 * time.Millisecond, ResponseSize: 2000}
	list := *get
	list.Verb, list.Scope = "LIST", "namespace"
	notFound := *get
	notFound.Code = 404
	for range 3 {
		m.ObserveRequest(get)
	}
	m.ObserveRequest(&list)
	m.ObserveRequest(&notFound)
	if n := testing.AllocsPerRun(100, func() { m.ObserveRequest(get) }); n != 0 {
		t.Errorf("ObserveRequest of a seen label set: %v allocations, want 0", n)
	}
	fams := scrape(t, reg)
	for _, c := range []struct {
		labels map[string]string
		want   float64
	}{
		{map[string]string{"verb": "GET", "code": "200"}, 3 + 101},
		{map[string]string{"verb": "LIST", "code": "200", "scope": "namespace"}, 1},
		{map[string]string{"verb": "GET", "code": "404"}, 1},
	} {
		if got := series(t, fams, "apiserver_request_total", c.labels).GetCounter().GetValue(); got != c.want {
			t.Errorf("apiserver_request_total%v = %v, want %v", c.labels, got, c.want)
		}
	}
	if got := series(t, fams, "apiserver_request_duration_seconds", map[string]string{"verb": "LIST"}).GetHistogram().GetSampleCount(); got != 1 {
		t.Errorf("LIST latency samples: %d, want 1", got)
	}
	if got := series(t, fams, "apiserver_response_sizes", map[string]string{"verb": "GET"}).GetHistogram().GetSampleCount(); got != 3+101+1 {
		t.Errorf("GET size samples: %d, want %d", got, 3+101+1)
	}
}

// TestObserveConsistentRead: each consistent read adds to the series of
// its resource, outcome and fallback, and counting one of a seen label
// set allocates nothing.
func TestObserveConsistentRead(t *testing.T) {
	reg := prom.NewRegistry()
	m, err := kapiprom.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []struct {
		resource          string
		fallback, success bool
		n                 int
	}{
		{"widgets", false, true, 3},
		{"widgets", true, true, 2},
		{"widgets", true, false, 1},
		{"gadgets", false, true, 1},
	} {
		for range r.n {
			m.ObserveConsistentRead("stable.example.com", r.resource, r.fallback, r.success)
		}
	}
	if n := testing.AllocsPerRun(100, func() { m.ObserveConsistentRead("stable.example.com", "widgets", false, true) }); n != 0 {
		t.Errorf("ObserveConsistentRead of a seen label set: %v allocations, want 0", n)
	}
	fams := scrape(t, reg)
	for _, c := range []struct {
		labels map[string]string
		want   float64
	}{
		{map[string]string{"resource": "widgets", "fallback": "false", "success": "true"}, 3 + 101},
		{map[string]string{"resource": "widgets", "fallback": "true", "success": "true"}, 2},
		{map[string]string{"resource": "widgets", "fallback": "true", "success": "false"}, 1},
		{map[string]string{"resource": "gadgets", "fallback": "false", "success": "true", "group": "stable.example.com"}, 1},
	} {
		if got := series(t, fams, "apiserver_watch_cache_consistent_read_total", c.labels).GetCounter().GetValue(); got != c.want {
			t.Errorf("apiserver_watch_cache_consistent_read_total%v = %v, want %v", c.labels, got, c.want)
		}
	}
}
