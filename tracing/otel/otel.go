// Package otel traces a kapi server's requests with OpenTelemetry: one
// server span per request, continuing the trace of the client's W3C
// traceparent header, with child spans for decoding the body
// ("decode"), each admission function ("admission.mutating",
// "admission.validating"), each storage call ("storage.get",
// "storage.put", …) and encoding the answer ("encode").
//
// Tracing is opt-in: a server without a Tracer pays nothing for it.
//
//	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exporter))
//	srv := apiserver.New(apiserver.Options{Tracer: kapiotel.New(tp, kapiotel.Options{SamplingRatePerMillion: 100})})
//
// # Sampling
//
// Requests are sampled as kube-apiserver samples them with its
// TracingConfiguration's samplingRatePerMillion, whose sampler is
// ParentBased(TraceIDRatioBased(rate / 1,000,000)): a request whose
// traceparent is sampled is traced, one whose traceparent is not sampled
// is not, and of the others [Options.SamplingRatePerMillion] in a million
// are. The default, 0, traces only the requests a client asks to trace.
// The decision is made before any span is started, so a request that is
// not traced costs a header lookup (and, when it has a traceparent,
// reading it): no span, attribute or context is made for it. Leave the
// provider's sampler at its default (ParentBased(AlwaysSample)), which
// records every span this package starts; a stricter one drops more.
package otel

import (
	"context"
	"math/rand/v2"
	"net/http"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/kapi-dev/kapi/apiserver"
)

// instrumentation names the tracer spans are made with.
const instrumentation = "github.com/kapi-dev/kapi/apiserver"

// Tracer is an [apiserver.Tracer] over an OpenTelemetry TracerProvider.
type Tracer struct {
	tracer trace.Tracer
	prop   propagation.TextMapPropagator
	server trace.SpanStartOption // made once: an option costs an allocation
	rate   uint64                // root requests traced per million
}

var _ apiserver.Tracer = (*Tracer)(nil)

// perMillion is the denominator of Options.SamplingRatePerMillion.
const perMillion = 1_000_000

// Options tunes [New].
type Options struct {
	// SamplingRatePerMillion is how many in a million of the requests
	// that carry no valid traceparent are traced, as kube-apiserver's
	// TracingConfiguration.samplingRatePerMillion: 0 (the default) traces
	// none of them, 1,000,000 or more every one. A request with a
	// traceparent is traced when its sampled flag is set, whatever the
	// rate.
	SamplingRatePerMillion int32
}

// New returns a Tracer that makes spans with tp, samples requests as
// opts says (see the package documentation), and reads the W3C trace
// context (traceparent, tracestate) of incoming requests. It uses no
// global provider or propagator.
func New(tp trace.TracerProvider, opts Options) *Tracer {
	return &Tracer{tracer: tp.Tracer(instrumentation), prop: propagation.TraceContext{},
		server: trace.WithSpanKind(trace.SpanKindServer), rate: uint64(min(max(opts.SamplingRatePerMillion, 0), perMillion))}
}

// StartRequest starts the server span of a sampled request, as a child of
// the span its traceparent names, if any, with the request's method and
// path as attributes. It returns a nil Span, and the request's context,
// for a request that is not sampled.
func (t *Tracer) StartRequest(r *http.Request, name string) (context.Context, apiserver.Span) {
	ctx := r.Context()
	if len(r.Header["Traceparent"]) > 0 {
		pctx := t.prop.Extract(ctx, headerCarrier(r.Header))
		if sc := trace.SpanContextFromContext(pctx); sc.IsValid() {
			if !sc.IsSampled() {
				return ctx, nil
			}
			return t.startServer(pctx, r, name)
		}
	}
	if !t.sampleRoot() {
		return ctx, nil
	}
	return t.startServer(ctx, r, name)
}

// sampleRoot decides whether to trace a request without a trace context.
func (t *Tracer) sampleRoot() bool {
	switch t.rate {
	case 0:
		return false
	case perMillion:
		return true
	}
	return rand.Uint64N(perMillion) < t.rate
}

func (t *Tracer) startServer(ctx context.Context, r *http.Request, name string) (context.Context, apiserver.Span) {
	ctx, sp := t.tracer.Start(ctx, name, t.server, trace.WithAttributes(
		attribute.String("http.request.method", r.Method),
		attribute.String("url.path", r.URL.Path)))
	return ctx, span{sp}
}

// Start starts a child span of the span on ctx, or returns a nil Span
// when that span is not recording (its request is not sampled).
func (t *Tracer) Start(ctx context.Context, name string) (context.Context, apiserver.Span) {
	if !trace.SpanFromContext(ctx).IsRecording() {
		return ctx, nil
	}
	ctx, sp := t.tracer.Start(ctx, name)
	return ctx, span{sp}
}

// headerCarrier reads the W3C trace context from request headers without
// canonicalizing the propagator's lower-case keys on every request, as
// [propagation.HeaderCarrier] does.
type headerCarrier http.Header

func (c headerCarrier) Get(key string) string {
	var v []string
	switch key {
	case "traceparent":
		v = c["Traceparent"]
	case "tracestate":
		v = c["Tracestate"]
	default:
		return http.Header(c).Get(key)
	}
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

func (c headerCarrier) Set(key, value string) { http.Header(c).Set(key, value) }

func (c headerCarrier) Keys() []string { return propagation.HeaderCarrier(c).Keys() }

// span adapts an OpenTelemetry span.
type span struct{ s trace.Span }

func (s span) SetAttribute(key, value string) { s.s.SetAttributes(attribute.String(key, value)) }

// SetStatusCode records http.response.status_code; a 5xx marks the span
// failed, as OpenTelemetry's HTTP server conventions say.
func (s span) SetStatusCode(code int) {
	s.s.SetAttributes(attribute.Int("http.response.status_code", code))
	if code >= 500 {
		s.s.SetStatus(codes.Error, strconv.Itoa(code))
	}
}

func (s span) End(err error) {
	if err != nil {
		s.s.RecordError(err)
		s.s.SetStatus(codes.Error, err.Error())
	}
	s.s.End()
}
