package server

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"time"

	prom "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/kapi-dev/kapi/apiserver"
	kapiprom "github.com/kapi-dev/kapi/metrics/prometheus"
	"github.com/kapi-dev/kapi/profiling"
	kapiotel "github.com/kapi-dev/kapi/tracing/otel"
)

// The example server's HTTP limits. A client that trickles its headers,
// or never ends them, holds a connection for at most ReadHeaderTimeout,
// with at most MaxHeaderBytes of them. There is no ReadTimeout nor
// WriteTimeout, as in kube-apiserver: they would cut watches, which
// stream for as long as they last. A body that trickles in is bounded by
// the request timeout instead (--request-timeout, or timeout=): at the
// deadline the server stops reading it and answers 504; a watcher that
// reads nothing is cut by the watch cache's stall timeout.
const (
	// ReadHeaderTimeout bounds the reading of a request's headers.
	ReadHeaderTimeout = 10 * time.Second
	// IdleTimeout closes kept-alive connections that send nothing.
	IdleTimeout = 90 * time.Second
	// MaxHeaderBytes bounds a request's headers, as kube-apiserver does.
	MaxHeaderBytes = 1 << 20
)

// Operations is what keeps the example server up in production; every
// field has kube-apiserver's flag of the same name.
type Operations struct {
	// Metrics serves kube-apiserver's metrics at /metrics (on by default
	// on the command line; off in a zero Config, as in benchmarks).
	Metrics bool
	// MaxRequestsInFlight, MaxMutatingRequestsInFlight: the in-flight
	// limits (--max-requests-inflight 400,
	// --max-mutating-requests-inflight 200; 0: no limit).
	MaxRequestsInFlight, MaxMutatingRequestsInFlight int
	// RequestTimeout bounds requests but watches (--request-timeout 60s).
	RequestTimeout time.Duration
	// MinRequestTimeout is the shortest lifetime, in seconds, of a watch
	// that names no timeoutSeconds (--min-request-timeout 1800); each
	// such watch ends between it and twice it.
	MinRequestTimeout int
	// ShutdownDelayDuration keeps serving with /readyz failing this long
	// after SIGTERM (--shutdown-delay-duration).
	ShutdownDelayDuration time.Duration
	// Profiling serves /debug/pprof/ behind the server's authorization
	// (--profiling).
	Profiling bool
	// TracingConfigFile names a file holding kube-apiserver's
	// apiserver.config.k8s.io TracingConfiguration
	// (--tracing-config-file): its endpoint, the OTLP gRPC collector
	// spans are sent to (default localhost:4317), and its
	// samplingRatePerMillion (default 0: only the requests whose
	// traceparent is sampled are traced). See TracingConfiguration.
	TracingConfigFile string
	// TracingEndpoint, when set and there is no TracingConfigFile, sends
	// spans to this OTLP gRPC collector (--tracing-endpoint, e.g.
	// localhost:4317), sampled at TracingSamplingRatePerMillion: a
	// shorthand kube-apiserver does not have.
	TracingEndpoint string
	// TracerProvider, when set, traces with it instead, sampled at
	// TracingSamplingRatePerMillion (tests and benchmarks).
	TracerProvider trace.TracerProvider
	// TracingSamplingRatePerMillion is the sampling rate of
	// TracingEndpoint and TracerProvider, as samplingRatePerMillion.
	TracingSamplingRatePerMillion int32
	// HTTP2MaxStreamsPerConnection is the most streams a client may open
	// on one HTTP/2 connection (--http2-max-streams-per-connection); 0
	// is kube-apiserver's 100, which is also Go's HTTP/2 client's
	// default. Clients that hold more watches open more connections,
	// each with its own writer.
	HTTP2MaxStreamsPerConnection int
}

// defaultHTTP2MaxStreams is kube-apiserver's limit of streams per HTTP/2
// connection when --http2-max-streams-per-connection is 0.
const defaultHTTP2MaxStreams = 100

// DefaultOperations are kube-apiserver's defaults.
func DefaultOperations() Operations {
	return Operations{Metrics: true, MaxRequestsInFlight: 400, MaxMutatingRequestsInFlight: 200, RequestTimeout: 60 * time.Second,
		MinRequestTimeout: 1800}
}

func addOperationsFlags(fs *flag.FlagSet, o *Operations) {
	*o = DefaultOperations()
	fs.IntVar(&o.MaxRequestsInFlight, "max-requests-inflight", o.MaxRequestsInFlight,
		"most read-only requests served at once (watches aside); beyond it they queue per user, then get 429; 0: no limit")
	fs.IntVar(&o.MaxMutatingRequestsInFlight, "max-mutating-requests-inflight", o.MaxMutatingRequestsInFlight,
		"most mutating requests served at once; 0: no limit")
	fs.DurationVar(&o.RequestTimeout, "request-timeout", o.RequestTimeout,
		"longest a request but a watch may take before it gets 504; a client's shorter timeout= wins")
	fs.IntVar(&o.MinRequestTimeout, "min-request-timeout", o.MinRequestTimeout,
		"shortest lifetime in seconds of a watch that names no timeoutSeconds; each ends at a random time between it and twice it")
	fs.DurationVar(&o.ShutdownDelayDuration, "shutdown-delay-duration", 0,
		"on SIGTERM, keep serving this long with /readyz failing, so load balancers stop sending requests first")
	fs.BoolVar(&o.Profiling, "profiling", false, "serve Go's pprof profiles at /debug/pprof/")
	fs.StringVar(&o.TracingConfigFile, "tracing-config-file", "",
		"file with an apiserver.config.k8s.io TracingConfiguration (endpoint, samplingRatePerMillion): trace requests with OpenTelemetry")
	fs.StringVar(&o.TracingEndpoint, "tracing-endpoint", "",
		"without --tracing-config-file, send OpenTelemetry traces of the requests whose traceparent is sampled to this OTLP gRPC collector (host:port)")
	fs.IntVar(&o.HTTP2MaxStreamsPerConnection, "http2-max-streams-per-connection", 0,
		"most streams a client may open on one HTTP/2 connection (served over TLS); 0: 100, as kube-apiserver")
}

// instruments is the metrics registry and the tracer a server reports to.
type instruments struct {
	registry *prom.Registry
	metrics  *kapiprom.Metrics
	webhooks *kapiprom.WebhookMetrics
	tracer   apiserver.Tracer
	close    func()
}

// openInstruments makes the server's own metrics registry and, when
// asked, its tracer.
func openInstruments(o Operations) (*instruments, error) {
	in := &instruments{registry: prom.NewRegistry(), close: func() {}}
	m, err := kapiprom.New(in.registry)
	if err != nil {
		return nil, err
	}
	in.metrics = m
	if in.webhooks, err = kapiprom.NewWebhookMetrics(in.registry); err != nil {
		return nil, err
	}
	endpoint, rate := o.TracingEndpoint, o.TracingSamplingRatePerMillion
	if o.TracingConfigFile != "" {
		if endpoint, rate, err = loadTracingConfig(o.TracingConfigFile); err != nil {
			return nil, err
		}
	}
	switch {
	case o.TracerProvider != nil:
		in.tracer = kapiotel.New(o.TracerProvider, kapiotel.Options{SamplingRatePerMillion: rate})
	case endpoint != "":
		exp, err := otlptracegrpc.New(context.Background(), otlptracegrpc.WithEndpoint(endpoint), otlptracegrpc.WithInsecure())
		if err != nil {
			return nil, fmt.Errorf("tracing: %w", err)
		}
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp))
		in.tracer = kapiotel.New(tp, kapiotel.Options{SamplingRatePerMillion: rate})
		in.close = func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = tp.Shutdown(ctx)
		}
	}
	return in, nil
}

// apply sets the operational options of the API server.
func (o Operations) apply(opts *apiserver.Options, in *instruments) {
	opts.MaxRequestsInFlight = o.MaxRequestsInFlight
	opts.MaxMutatingRequestsInFlight = o.MaxMutatingRequestsInFlight
	opts.RequestTimeout = o.RequestTimeout
	if o.RequestTimeout == 0 {
		opts.RequestTimeout = -1 // the flag's 0 means none
	}
	opts.MinWatchTimeout = time.Duration(o.MinRequestTimeout) * time.Second
	opts.ShutdownDelayDuration = o.ShutdownDelayDuration
	if o.Metrics {
		opts.Observer = in.metrics
	}
	if in.tracer != nil {
		opts.Tracer = in.tracer
	}
}

// mount adds /metrics and, with --profiling, /debug/pprof/ to mux, both
// behind the API server's authorization.
func (o Operations) mount(mux *http.ServeMux, api *apiserver.Server, in *instruments) {
	if o.Metrics {
		mux.Handle("/metrics", api.NonResourceHandler(promhttp.HandlerFor(in.registry, promhttp.HandlerOpts{})))
	}
	if o.Profiling {
		mux.Handle("/debug/pprof/", api.NonResourceHandler(profiling.Handler()))
	}
}

// newHTTPServer is the example's http.Server, with the timeouts above.
func newHTTPServer(h http.Handler, o Operations) *http.Server {
	streams := o.HTTP2MaxStreamsPerConnection
	if streams <= 0 {
		streams = defaultHTTP2MaxStreams
	}
	return &http.Server{Handler: h, ReadHeaderTimeout: ReadHeaderTimeout, IdleTimeout: IdleTimeout, MaxHeaderBytes: MaxHeaderBytes,
		HTTP2: &http.HTTP2Config{MaxConcurrentStreams: streams}}
}

// shutdown stops the server gracefully: the API server's sequence
// (/readyz fails, the delay, 503 for new requests, watches end, requests
// in flight finish), then the HTTP server's.
func shutdown(api *apiserver.Server, hs *http.Server, delay time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), delay+30*time.Second)
	defer cancel()
	err := api.Shutdown(ctx)
	if herr := hs.Shutdown(ctx); herr != nil && !errors.Is(herr, context.DeadlineExceeded) {
		err = errors.Join(err, herr)
	}
	return err
}
