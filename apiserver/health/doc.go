// Package health serves the health endpoints of a Kubernetes-style API
// server, /livez, /readyz and /healthz, in kube-apiserver's format, and
// tracks the server's shutdown.
//
// In the request path it sits right after authentication and
// authorization: the server answers a health path from a [Handler]
// before routing anything else, and probes skip the limits so that they
// answer while the server is saturated or shutting down. Every other
// request enters and leaves a [Shutdown], which turns it away once the
// server drains and lets shutdown wait for it.
//
// A host serving its own mux can mount a [Handler] built from its own
// checks; apiserver.Server builds one from its stores, watch caches and
// Options.HealthChecks.
package health
