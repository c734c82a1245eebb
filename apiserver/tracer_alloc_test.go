package apiserver_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/kapi-dev/kapi/apiserver"
)

// unsampledTracer samples nothing, as a sampling tracer does for most
// requests.
type unsampledTracer struct{}

func (unsampledTracer) StartRequest(r *http.Request, _ string) (context.Context, apiserver.Span) {
	return r.Context(), nil
}

func (unsampledTracer) Start(ctx context.Context, _ string) (context.Context, apiserver.Span) {
	return ctx, nil
}

// TestInstrumentsAllocateNothing: an observer adds no allocation to a
// request (its record is pooled with the rest of the request's state),
// and neither does a tracer that does not sample the request (its span
// name included); the server copes with the tracer's nil spans.
func TestInstrumentsAllocateNothing(t *testing.T) {
	modes := []struct {
		name     string
		observer bool
		tracer   bool
	}{
		{name: "none"},
		{name: "observer", observer: true},
		{name: "observer+unsampled-tracer", observer: true, tracer: true},
	}
	allocs := map[string]float64{}
	for _, m := range modes {
		var opts apiserver.Options
		if m.observer {
			opts.Observer = &consistentReads{calls: map[[2]bool]int{}}
		}
		if m.tracer {
			opts.Tracer = unsampledTracer{}
		}
		srv := apiserver.New(opts)
		srv.Register(widgetKind())
		if err := srv.Err(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(srv.Close)
		ts := httptest.NewServer(srv)
		t.Cleanup(ts.Close)
		createWidget(t, ts, "w1", `{"replicas":1}`)
		req := httptest.NewRequest("GET", widgetsPath+"/w1", nil)
		get := func() {
			w := httptest.NewRecorder()
			srv.ServeHTTP(w, req)
			if w.Code != http.StatusOK {
				t.Fatalf("%s: GET: %d %s", m.name, w.Code, w.Body)
			}
		}
		get()
		allocs[m.name] = testing.AllocsPerRun(500, get)
	}
	t.Logf("allocations per GET: %v", allocs)
	if got, want := allocs["observer"], allocs["none"]; got > want {
		t.Errorf("a GET allocates %v times with an observer, %v without: want no more", got, allocs["none"])
	}
	if got, want := allocs["observer+unsampled-tracer"], allocs["observer"]; got > want {
		t.Errorf("a GET allocates %v times with an unsampling tracer, %v with the observer alone", got, want)
	}
}
