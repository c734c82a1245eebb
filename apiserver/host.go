package apiserver

import (
	"context"
	"net/http"

	"github.com/kapi-dev/kapi/schema"
	"github.com/kapi-dev/kapi/watch"
)

// The methods a host calls; each one is its server's.

// Cached returns the reader of the resource of a group registered under
// any version, and false when none is registered.
func (s *Server) Cached(group, resource string) (Cached, bool) {
	return s.s.kinds.Cached(group, resource)
}

// CheckKind reports what Install would refuse in k, without serving it:
// the checks of the kind itself, its schema and rules, and its
// collisions with the kinds registered with Register. Collisions with
// kinds installed at run time are left to whoever installs them (as the
// CustomResourceDefinition controller arbitrates names between
// definitions).
func (s *Server) CheckKind(k Kind) error {
	return s.s.kinds.CheckKind(k)
}

// Close stops the server's watch caches and ends every watch. Requests
// after Close fail.
func (s *Server) Close() {
	s.s.kinds.Close()
}

// Err returns every registration error joined (see errors.Join), or nil.
func (s *Server) Err() error {
	return s.s.kinds.Err()
}

// Install serves a kind, or replaces one an earlier Install added under
// the same group, version and resource, while the server may be serving
// requests. The kind is checked completely (as Register checks it) and
// either served whole or refused with an error: it is never partly
// served. A kind that collides with a registered one (its group and
// resource, or its group, version and kind) is refused.
//
// Discovery (legacy and aggregated, whose ETags change) and the OpenAPI
// documents are rebuilt. Watches of other kinds go on; a replaced kind's
// watch cache stops, which ends its open watches as kube-apiserver ends
// them when a CustomResourceDefinition changes, and clients watch again.
//
// A kind with Versions is installed in all of them at once, and replaces
// the earlier Install of its group and resource in every version.
func (s *Server) Install(k Kind) error {
	return s.s.kinds.Install(k)
}

// NonResourceHandler serves h behind the server's authentication,
// impersonation, audit and authorization, as kube-apiserver serves
// /metrics and /debug/pprof: a non-resource request whose verb is the
// lower-cased method and whose path the authorizer sees (RBAC's
// nonResourceURLs). Without an Authorizer everyone may reach h.
func (s *Server) NonResourceHandler(h http.Handler) http.Handler {
	return s.s.NonResourceHandler(h)
}

// Patterns returns the paths the server answers, as [http.ServeMux]
// patterns, for a host that mounts it next to its own handlers rather than
// at "/":
//
//	for _, p := range srv.Patterns() {
//		mux.Handle(p, srv)
//	}
//
// The list does not depend on the kinds registered. Handlers a host
// mounts itself, such as [Server.NonResourceHandler]'s, are not in it.
//
// To serve the API under a path prefix, strip the prefix before the
// server sees the path and give clients the prefixed URL (a kubeconfig
// whose server is https://host/kapi):
//
//	mux.Handle("/kapi/", http.StripPrefix("/kapi", srv))
//
// Clients add their URL's path to every path they send, including those
// the server names in its responses (the OpenAPI v3 index's
// serverRelativeURLs), so those stay relative to the server's own root.
//
// The patterns are discovery and every resource below /api and /apis (the
// access and subject reviews too), the OpenAPI v3 documents, /version and
// the health endpoints with their single checks.
func (s *Server) Patterns() []string {
	return s.s.Patterns()
}

// Register adds a kind. Problems are recorded, every one of them, and
// returned together by Err (Register returns the Server so calls can be
// chained); a server with any of them serves nothing but 500s. Register
// panics when called after the server has answered a request.
// A kind served in several versions is registered once, with
// Kind.Versions; registering another version of a kind or resource
// separately is refused.
func (s *Server) Register(k Kind) *Server {
	s.s.kinds.Register(k)
	return s
}

// RuleEngine returns the engine of [Options].RuleEngine, or nil: the
// one the kinds installed at run time compile their rules with, so that
// whoever defines them (CustomResourceDefinitions) can check the rules
// first and place each problem in the definition.
func (s *Server) RuleEngine() schema.RuleEngine {
	return s.s.RuleEngine()
}

// ServeHTTP routes a request to discovery, OpenAPI, health or a resource
// verb.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.s.ServeHTTP(w, r)
}

// Served lists the group, version and resource of every served kind,
// sorted, and whether Install added it.
func (s *Server) Served() []ServedResource {
	return s.s.kinds.Served()
}

// Shutdown stops the server gracefully, in kube-apiserver's order:
//
//  1. /readyz fails (its "shutdown" check), so that load balancers stop
//     sending new requests, while every request is still served for
//     Options.ShutdownDelayDuration;
//  2. new requests get 503 ServiceUnavailable with Retry-After, which
//     clients such as client-go retry (elsewhere, behind a load balancer);
//  3. open watches end cleanly (the stream ends after the events already
//     sent, and clients watch again from their last resourceVersion);
//  4. requests in flight finish, writes included;
//  5. the watch caches stop ([Server.Close]).
//
// Health checks are answered throughout. Shutdown returns ctx's error if
// ctx ends first; the watch caches are stopped anyway. The host then
// shuts its http.Server down. Shutdown is meant to be called once.
func (s *Server) Shutdown(ctx context.Context) error {
	return s.s.Shutdown(ctx)
}

// StoredVersions returns the versions the objects of a resource are
// stored in now, sorted, and always the current storage version: when
// an earlier storage version is no longer among them, no stored object
// needs it any more (a CustomResourceDefinition's status.storedVersions
// can drop it). It reads the watch cache at the store's current
// revision. ok is false when the resource is not registered.
func (s *Server) StoredVersions(ctx context.Context, group, resource string) (versions []string, ok bool, err error) {
	return s.s.kinds.StoredVersions(ctx, group, resource)
}

// Uninstall stops serving a resource that Install added, in every
// version, and stops its watch caches (ending their watches). Its
// objects stay in the store. It returns an error for a resource that
// was registered rather than installed, or is not served.
func (s *Server) Uninstall(group, resource string) error {
	return s.s.kinds.Uninstall(group, resource)
}

// WatchCounters returns the counts of the server's watch caches (shared
// event encodings, watchers ended as too slow), for a host's metrics.
func (s *Server) WatchCounters() *watch.Counters {
	return s.s.kinds.WatchCounters()
}
