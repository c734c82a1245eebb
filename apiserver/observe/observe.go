// Package observe holds what a server reports of its work, for a host's
// metrics and tracing: the [Observer] and [Tracer] a host implements, and
// the records the server hands them ([RequestRecord], [RequestLabels],
// [ResourceStats]).
//
// In the request path, observation wraps everything else: the request's
// labels are read from its path first, the record is filled in by the
// filters (the in-flight limit, the timeout) and handed to the observer
// once the response is written. Package apiserver names these types too
// (apiserver.Observer is observe.Observer), so a host can use either.
package observe

import (
	"context"
	"net/http"
	"time"
)

// Observer receives the server's measurements, for a host's metrics. The
// names follow kube-apiserver's metrics so that an adapter can publish
// them under kube-apiserver's names, labels and buckets (package
// github.com/kapi-dev/kapi/metrics/prometheus is one). A nil Observer
// costs nothing: no labels are computed and no calls made.
//
// Methods are called concurrently from request goroutines and must not
// block.
type Observer interface {
	// ObserveRequest is called once per finished request (a watch when it
	// ends), with its labels and outcome. The record is valid only during
	// the call.
	ObserveRequest(rec *RequestRecord)
	// ObserveInflight reports the requests of one kind ("readOnly" or
	// "mutating") holding a seat of the in-flight limit now.
	ObserveInflight(kind string, n int)
	// ObserveLongRunning counts an open long-running request (a watch):
	// delta is +1 when it starts and -1 when it ends.
	ObserveLongRunning(labels *RequestLabels, delta int)
	// ObserveWatchers counts the registered watchers of a kind, as
	// ObserveLongRunning does.
	ObserveWatchers(group, version, kind string, delta int)
	// ObserveWatchEvent is called for every event sent to a watcher, with
	// its framed size in bytes.
	ObserveWatchEvent(group, version, resource string, size int)
	// ObserveConsistentRead is called as each consistent get or list (no
	// resourceVersion) of a resource ends: fallback when the watch cache
	// did not catch up with the store in time and the read was served
	// from the store, success when it did not fail (kube-apiserver's
	// apiserver_watch_cache_consistent_read_total).
	ObserveConsistentRead(group, resource string, fallback, success bool)
	// ObserveResources is called once, by apiserver.New, with a function that
	// returns the state of every registered resource (stored objects,
	// watch cache size). The observer calls it when it is scraped.
	ObserveResources(read func() []ResourceStats)
}

// RequestLabels are the labels kube-apiserver puts on its request metrics.
type RequestLabels struct {
	// Verb is kube-apiserver's reported verb: GET, LIST, WATCH, POST, PUT,
	// PATCH, APPLY, DELETE (collections too), or the method of a request
	// outside the API (GET of /healthz, …).
	Verb string
	// DryRun is the request's dryRun values, "" when none.
	DryRun string
	// Group, Version, Resource and Subresource name the resource; empty
	// for requests outside the API, and for those that name a resource
	// the server does not serve (so that clients cannot make series
	// without bound).
	Group, Version, Resource, Subresource string
	// Scope is "resource" (one object, or a create), "namespace",
	// "cluster", or "" outside the API.
	Scope string
	// Component is "apiserver".
	Component string
}

// RequestRecord is one finished request.
type RequestRecord struct {
	RequestLabels
	// Code is the HTTP status code of the response.
	Code int
	// Duration is from the request's arrival to the end of its response.
	Duration time.Duration
	// ResponseSize is the number of body bytes written.
	ResponseSize int64
	// Rejected is why the in-flight limit turned the request away with
	// 429 ("queue-full", "time-out" or "cancelled"), "" if it did not.
	Rejected string
	// RequestKind is "readOnly" or "mutating": the in-flight limit the
	// request counted against ("" for long-running and exempt requests).
	RequestKind string
	// TimedOut is set when the request ran past its timeout (504).
	TimedOut bool
	// Aborted is set when the connection was cut because the request
	// timed out after its response had started.
	Aborted bool
}

// ResourceStats is the state of one registered resource.
type ResourceStats struct {
	Group, Version, Resource string
	// Objects is the number of stored objects, as the watch cache holds
	// them; -1 until the cache has synced.
	Objects int
	// WindowEvents is the number of events the watch cache's window holds.
	WindowEvents int
	// Revision is the watch cache's revision.
	Revision int64
}

// Tracer starts spans, for a host's tracing (package
// github.com/kapi-dev/kapi/tracing/otel is an OpenTelemetry one). A nil
// Tracer costs nothing.
//
// A tracer that samples returns a nil Span, and the context it was given,
// for a request or operation it does not trace: the server then records
// nothing for it.
type Tracer interface {
	// StartRequest starts the span of one request, continuing the trace
	// its headers carry (W3C traceparent), and returns the context
	// carrying it. The span records the request's method and path.
	StartRequest(r *http.Request, name string) (context.Context, Span)
	// Start starts a child span of the span on ctx.
	Start(ctx context.Context, name string) (context.Context, Span)
}

// Span is one traced operation.
type Span interface {
	// SetAttribute records an attribute of the operation.
	SetAttribute(key, value string)
	// SetStatusCode records the HTTP status code of a request's span.
	SetStatusCode(code int)
	// End ends the span; err, when not nil, marks it failed.
	End(err error)
}
