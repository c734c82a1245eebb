package prometheus_test

import (
	"math"
	"strconv"
	"sync"
	"testing"
	"time"

	prom "github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/kapi-dev/kapi/apiserver"
	kapiprom "github.com/kapi-dev/kapi/metrics/prometheus"
)

// TestRequestHistograms: the request metrics, kept in cells per shard and
// added up at scrape, read as client_golang's histograms would: every
// observation in the bucket of its bound, cumulative counts, sums; requests
// that differ only by code share their latency histogram, and by dry_run
// their size histogram; observations from many goroutines at once are
// all counted.
func TestRequestHistograms(t *testing.T) {
	reg := prom.NewRegistry()
	m, err := kapiprom.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	get := apiserver.RequestRecord{RequestLabels: apiserver.RequestLabels{Verb: "GET", Group: "stable.example.com",
		Version: "v1", Resource: "widgets", Scope: "resource", Component: "apiserver"}, Code: 200}
	observations := []struct {
		code, dryRun string
		d            time.Duration
		size         int64
	}{
		{"200", "", time.Millisecond, 500},        // le 0.005, le 1000
		{"200", "", 30 * time.Millisecond, 5000},  // le 0.05, le 10000
		{"404", "", 2 * time.Second, 2e6},         // le 2, le 1e7
		{"200", "All", 100 * time.Second, 2e9},    // +Inf, +Inf
		{"200", "", 5 * time.Millisecond, 1000},   // on the bounds: le 0.005, le 1000
		{"404", "All", 45 * time.Second, 999_999}, // le 45, le 1e6
		{"200", "", 61 * time.Second, 3e9},        // +Inf, +Inf
	}
	const goroutines, each = 8, 1000
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range each {
				o := observations[(g+i)%len(observations)]
				r := get
				r.Code, _ = strconv.Atoi(o.code)
				r.DryRun, r.Duration, r.ResponseSize = o.dryRun, o.d, o.size
				m.ObserveRequest(&r)
			}
		})
	}
	wg.Wait()
	// Each observation was made goroutines*each/len(observations) times,
	// give or take one.
	times := make([]uint64, len(observations))
	for g := range goroutines {
		for i := range each {
			times[(g+i)%len(observations)]++
		}
	}
	fams := scrape(t, reg)
	var total uint64
	for _, n := range times {
		total += n
	}
	var counted float64
	for _, s := range fams["apiserver_request_total"].Metric {
		counted += s.GetCounter().GetValue()
	}
	if counted != float64(total) {
		t.Errorf("apiserver_request_total adds up to %v, want %d", counted, total)
	}
	// The latency of the requests without dry_run, codes 200 and 404
	// together; the sizes of all, dry_run or not.
	noDryRun := func(i int) bool { return observations[i].dryRun == "" }
	all := func(int) bool { return true }
	seconds := func(i int) float64 { return observations[i].d.Seconds() }
	bytes := func(i int) float64 { return float64(observations[i].size) }
	checkHistogram(t, series(t, fams, "apiserver_request_duration_seconds", map[string]string{"dry_run": ""}),
		times, noDryRun, seconds)
	checkHistogram(t, series(t, fams, "apiserver_response_sizes", map[string]string{"verb": "GET"}),
		times, all, bytes)
}

// checkHistogram compares a scraped histogram with the observations
// times[i] of value(i) for which in(i) holds: every bucket holds those at
// most its upper bound.
func checkHistogram(t *testing.T, m *dto.Metric, times []uint64, in func(int) bool, value func(int) float64) {
	t.Helper()
	if m == nil {
		return
	}
	h := m.GetHistogram()
	var count uint64
	var sum float64
	for i, n := range times {
		if in(i) {
			count += n
			sum += float64(n) * value(i)
		}
	}
	if h.GetSampleCount() != count || math.Abs(h.GetSampleSum()-sum) > 1e-6*sum {
		t.Errorf("%v: %d samples summing to %v, want %d summing to %v", m.Label, h.GetSampleCount(), h.GetSampleSum(), count, sum)
	}
	for _, b := range h.Bucket {
		var want uint64
		for i, n := range times {
			if in(i) && value(i) <= b.GetUpperBound() {
				want += n
			}
		}
		if b.GetCumulativeCount() != want {
			t.Errorf("%v: bucket le=%v holds %d, want %d", m.Label, b.GetUpperBound(), b.GetCumulativeCount(), want)
		}
	}
}

// TestManySeries: past the series looked up without a lock, requests of
// new label sets (clients choose paths, so labels) are still counted.
func TestManySeries(t *testing.T) {
	reg := prom.NewRegistry()
	m, err := kapiprom.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	const n = 1500
	for i := range n {
		r := apiserver.RequestRecord{RequestLabels: apiserver.RequestLabels{Verb: "GET", Group: "example.com", Version: "v1",
			Resource: "r" + strconv.Itoa(i), Scope: "resource", Component: "apiserver"}, Code: 404}
		m.ObserveRequest(&r)
		if i%2 == 0 {
			m.ObserveRequest(&r)
		}
	}
	fams := scrape(t, reg)
	got := map[string]float64{}
	for _, s := range fams["apiserver_request_total"].Metric {
		for _, l := range s.Label {
			if l.GetName() == "resource" {
				got[l.GetValue()] = s.GetCounter().GetValue()
			}
		}
	}
	for i := range n {
		want := 1.0
		if i%2 == 0 {
			want = 2
		}
		if r := "r" + strconv.Itoa(i); got[r] != want {
			t.Fatalf("apiserver_request_total{resource=%q} = %v, want %v", r, got[r], want)
		}
	}
	if c := len(fams["apiserver_response_sizes"].Metric); c != n {
		t.Errorf("%d size histograms, want %d", c, n)
	}
}
