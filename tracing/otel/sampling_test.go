package otel_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/kapi-dev/kapi/apiserver"
	kapiotel "github.com/kapi-dev/kapi/tracing/otel"
)

const (
	sampledParent   = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	unsampledParent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00"
	badParent       = "00-00000000000000000000000000000000-00f067aa0ba902b7-01" // all-zero trace ID: invalid
)

// newTracer returns a tracer at rate recording into a fresh recorder.
func newTracer(rate int32) (*kapiotel.Tracer, *tracetest.SpanRecorder) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	return kapiotel.New(tp, kapiotel.Options{SamplingRatePerMillion: rate}), rec
}

// traceOne starts a request span and a child span as the server does, and
// ends them.
func traceOne(tr *kapiotel.Tracer, traceparent string) {
	r := httptest.NewRequest("GET", widgets+"/a", nil)
	if traceparent != "" {
		r.Header.Set("traceparent", traceparent)
	}
	ctx, sp := tr.StartRequest(r, "GET widgets")
	if _, child := tr.Start(ctx, "encode"); child != nil {
		child.End(nil)
	}
	if sp != nil {
		sp.SetStatusCode(http.StatusOK)
		sp.End(nil)
	}
}

// TestSampling: a request is traced (its span and its child's recorded)
// when its traceparent is sampled; not when its traceparent is not
// sampled, whatever the rate; and otherwise at the rate per million.
func TestSampling(t *testing.T) {
	for _, tc := range []struct {
		name        string
		rate        int32
		traceparent string
		traced      bool
	}{
		{"default rate, no traceparent", 0, "", false},
		{"default rate, sampled traceparent", 0, sampledParent, true},
		{"default rate, unsampled traceparent", 0, unsampledParent, false},
		{"default rate, invalid traceparent", 0, badParent, false},
		{"every request, no traceparent", 1_000_000, "", true},
		{"every request, unsampled traceparent", 1_000_000, unsampledParent, false},
		{"every request, invalid traceparent", 1_000_000, badParent, true},
		{"above a million", 2_000_000, "", true},
		{"negative", -5, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, rec := newTracer(tc.rate)
			traceOne(tr, tc.traceparent)
			want := 0
			if tc.traced {
				want = 2
			}
			if got := len(rec.Ended()); got != want {
				t.Fatalf("%d spans recorded, want %d: %v", got, want, names(rec.Ended()))
			}
		})
	}
}

// TestSamplingRate: at half a million per million, about half of the
// requests without a traceparent are traced.
func TestSamplingRate(t *testing.T) {
	tr, rec := newTracer(500_000)
	const n = 2000
	for range n {
		traceOne(tr, "")
	}
	// Each traced request records two spans; 2000 draws at p=0.5 fall
	// outside [800, 1200] with probability below 1e-18.
	if got := len(rec.Ended()) / 2; got < 800 || got > 1200 {
		t.Fatalf("%d of %d requests traced at 500000 per million", got, n)
	}
}

// TestUnsampledCostsNothing: a request that is not sampled, and the
// operations under it, allocate nothing in the tracer.
func TestUnsampledCostsNothing(t *testing.T) {
	tr, _ := newTracer(0)
	r := httptest.NewRequest("GET", widgets+"/a", nil)
	if n := testing.AllocsPerRun(100, func() {
		ctx, sp := tr.StartRequest(r, "GET widgets")
		_, child := tr.Start(ctx, "encode")
		if sp != nil || child != nil {
			t.Fatal("an unsampled request got a span")
		}
	}); n != 0 {
		t.Errorf("an unsampled request: %v allocations, want 0", n)
	}
}

// TestServerUnsampled: a server whose tracer samples nothing but sampled
// traceparents serves requests without one (writes with admission and
// storage spans included) and records no span for them.
func TestServerUnsampled(t *testing.T) {
	admit := func(context.Context, *apiserver.AdmissionRequest) error { return nil }
	ts, rec := tracedServer(t, apiserver.Options{MutatingAdmission: []apiserver.AdmissionFunc{admit}})
	do(t, "POST", ts.URL+widgets, "application/json",
		`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"a"}}`, nil, http.StatusCreated)
	do(t, "GET", ts.URL+widgets+"/a", "", "", map[string]string{"traceparent": unsampledParent}, http.StatusOK)
	do(t, "GET", ts.URL+widgets+"/a", "", "", map[string]string{"traceparent": sampledParent}, http.StatusOK)
	_, spans := waitForRequestSpan(t, rec, "4bf92f3577b34da6a3ce929d0e0e4736", "GET widgets")
	if got := names(rec.Ended()); len(rec.Ended()) != len(spans) || got["POST widgets"] != 0 || got["GET widgets"] != 1 {
		t.Fatalf("spans recorded: %v, want only the sampled GET's", got)
	}
}
