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
//	srv := apiserver.New(apiserver.Options{Tracer: kapiotel.New(tp)})
package otel

import (
	"context"
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
}

var _ apiserver.Tracer = (*Tracer)(nil)

// New returns a Tracer that makes spans with tp and reads the W3C trace
// context (traceparent, tracestate) of incoming requests. It uses no
// global provider or propagator.
func New(tp trace.TracerProvider) *Tracer {
	return &Tracer{tracer: tp.Tracer(instrumentation), prop: propagation.TraceContext{},
		server: trace.WithSpanKind(trace.SpanKindServer)}
}

// StartRequest starts the server span of a request, as a child of the
// span its traceparent names, if any, with the request's method and path
// as attributes.
func (t *Tracer) StartRequest(r *http.Request, name string) (context.Context, apiserver.Span) {
	ctx := t.prop.Extract(r.Context(), headerCarrier(r.Header))
	ctx, sp := t.tracer.Start(ctx, name, t.server, trace.WithAttributes(
		attribute.String("http.request.method", r.Method),
		attribute.String("url.path", r.URL.Path)))
	return ctx, span{sp}
}

// Start starts a child span of the span on ctx.
func (t *Tracer) Start(ctx context.Context, name string) (context.Context, apiserver.Span) {
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
