package otel_test

import (
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/kapi-dev/kapi/apiserver"
	kapiotel "github.com/kapi-dev/kapi/tracing/otel"
)

// A host passes its TracerProvider (with its exporter) to the server,
// and how many requests in a million to trace besides those whose
// traceparent asks for it.
func ExampleNew() {
	tp := sdktrace.NewTracerProvider() // add sdktrace.WithBatcher(exporter)
	srv := apiserver.New(apiserver.Options{Tracer: kapiotel.New(tp, kapiotel.Options{SamplingRatePerMillion: 100})})
	defer srv.Close()
	// Output:
}
