package apiserver

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/apiserver/filters"
	"github.com/kapi-dev/kapi/apiserver/requestinfo"
)

// TestFiltersReadAnEmptyQueryFreely: the filters that look at a
// request's query (timeout, watch, verbs) cost no allocation for a
// request without one, as most gets are; with one they read it.
func TestFiltersReadAnEmptyQueryFreely(t *testing.T) {
	s := newServer(Options{RequestTimeout: time.Minute})
	t.Cleanup(s.kinds.Close)
	read := func(target string) (verb string, timeout time.Duration, class requestinfo.Class) {
		r := httptest.NewRequest("GET", target, nil)
		class = requestinfo.Classify(r)
		timeout, err := filters.RequestTimeout(r, s.opts.RequestTimeout)
		if err != nil {
			t.Fatal(err)
		}
		if v := requestinfo.Verb(r, true, false); v != verbFor(r, true, false) {
			t.Fatalf("%s: verbs %s and %s", target, v, verbFor(r, true, false))
		}
		return requestinfo.Verb(r, true, false), timeout, class
	}
	if verb, timeout, class := read(widgetPath + "?watch=true&timeout=5s"); verb != "watch" || timeout != 5*time.Second || !class.LongRunning {
		t.Errorf("with a query: %s, %v, %+v", verb, timeout, class)
	}
	r := httptest.NewRequest("GET", widgetPath, nil)
	allocs := testing.AllocsPerRun(100, func() {
		requestinfo.Classify(r)
		_, _ = filters.RequestTimeout(r, s.opts.RequestTimeout)
		requestinfo.Verb(r, true, false)
		verbFor(r, true, false)
	})
	if allocs != 0 {
		t.Errorf("reading an empty query allocates %v times", allocs)
	}
}

const widgetPath = "/apis/stable.example.com/v1/namespaces/default/widgets/w1"
