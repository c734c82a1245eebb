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

// TestUnsampledRequestAllocatesNothingMore: a tracer that does not sample
// a request adds no allocation to it (its span name included) over an
// observer alone, and the server copes with its nil spans.
func TestUnsampledRequestAllocatesNothingMore(t *testing.T) {
	allocs := map[bool]float64{}
	for _, traced := range []bool{false, true} {
		opts := apiserver.Options{Observer: &consistentReads{calls: map[[2]bool]int{}}}
		if traced {
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
				t.Fatalf("GET: %d %s", w.Code, w.Body)
			}
		}
		get()
		allocs[traced] = testing.AllocsPerRun(500, get)
	}
	if allocs[true] > allocs[false] {
		t.Errorf("a GET allocates %v times with an unsampling tracer, %v without", allocs[true], allocs[false])
	}
}
