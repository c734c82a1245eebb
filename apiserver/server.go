package apiserver

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kapi-dev/kapi/apiserver/admission"
	"github.com/kapi-dev/kapi/apiserver/filters"
	"github.com/kapi-dev/kapi/apiserver/internal/handlers"
	"github.com/kapi-dev/kapi/apiserver/internal/registry"
	"github.com/kapi-dev/kapi/apiserver/internal/reviews"
	"github.com/kapi-dev/kapi/apiserver/internal/schemaplan"
	"github.com/kapi-dev/kapi/audit"
	"github.com/kapi-dev/kapi/auth"
	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/codec/cbor"
	"github.com/kapi-dev/kapi/codec/protobuf"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/schema"
	"github.com/kapi-dev/kapi/status"
	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/storage/memory"
	"github.com/kapi-dev/kapi/watch"
)

// Options configures a Server. The zero value serves from an in-memory
// store.
type Options struct {
	// Storage is the default store for kinds that name none; default: a
	// new storage/memory store.
	Storage storage.Interface
	// MaxRequestBodyBytes bounds request bodies; larger ones get 413.
	// Default 3 MiB, as kube-apiserver.
	MaxRequestBodyBytes int64
	// Logger receives one debug line per request; default: discard.
	Logger *slog.Logger
	// Codecs replaces the default codec registry (JSON, YAML, Kubernetes
	// protobuf, CBOR).
	Codecs *codec.Registry
	// Version is what /version reports; default: a Kubernetes version
	// kapi is compatible with.
	Version VersionInfo
	// WatchCache tunes the watch cache each kind's reads are served from.
	WatchCache WatchCacheOptions
	// MinWatchTimeout is the shortest lifetime of a watch whose client
	// gives no timeoutSeconds: each such watch ends after a random time
	// between it and twice it, as kube-apiserver's --min-request-timeout
	// does, so that watches do not all end at once. Default 30 minutes.
	MinWatchTimeout time.Duration
	// StorageMediaType is the encoding of stored values: JSON (the
	// default), Kubernetes protobuf or CBOR, by media type. JSON reads of
	// JSON values are served from the stored bytes without decoding; the
	// binary encodings take less room in the store (an etcd cluster's
	// disk, network and memory) and cost a decode per JSON read. Values
	// in any of the three are read whatever this says, so it can change
	// over the life of a store. Kinds the encoding cannot carry (no
	// protobuf tags) are stored as JSON.
	StorageMediaType string
	// MutatingAdmission runs, in order, on every create, update, patch
	// and delete (dry runs included), after defaulting and before
	// validation; its functions may change the object. See
	// [AdmissionFunc].
	MutatingAdmission []AdmissionFunc
	// ValidatingAdmission runs, in order, after validation and just
	// before the write is stored; its functions must not change the
	// object.
	ValidatingAdmission []AdmissionFunc
	// RuleEngine compiles and evaluates the x-kubernetes-validations
	// (CEL rules) of kinds' schemas, at registration and with the
	// schema's other checks on every write; github.com/kapi-dev/kapi/cel
	// provides one. Without it a kind whose schema has rules is refused.
	RuleEngine schema.RuleEngine
	// Authenticator identifies the user of each request (an auth.Chain
	// of client certificates, tokens, a front proxy, anonymous); a
	// request it rejects gets 401. A user already on the request's
	// context, put there by the host's own middleware, is kept. Nil: no
	// authentication.
	Authenticator auth.Authenticator
	// APIAudiences are the audiences the server's tokens are meant for
	// (kube-apiserver's --api-audiences): a TokenReview that names none
	// is asked about these, and one naming others is unauthenticated,
	// since kapi's authenticators know no audiences of their own.
	APIAudiences []string
	// Authorizer decides what each user may do (an auth.Authorizers
	// chain, RBAC from auth/rbac); anything but allow is 403. It also
	// decides impersonation. Nil allows everything. /healthz, /livez,
	// /readyz and /version are open to everyone.
	Authorizer auth.Authorizer
	// Audit records one audit.k8s.io/v1 event per request at the level
	// its policy chooses; nil records nothing.
	Audit *audit.Logger

	// Staying up in production (see filters.go and the package doc).

	// MaxRequestsInFlight bounds the read-only requests served at once,
	// watches excepted; 0 means no limit (kube-apiserver's
	// --max-requests-inflight). Requests beyond it wait in per-user
	// queues served in turn, then get 429 with Retry-After. Members of
	// system:masters are exempt, as in kube-apiserver.
	MaxRequestsInFlight int
	// MaxMutatingRequestsInFlight bounds the writes served at once; 0
	// means no limit (--max-mutating-requests-inflight).
	MaxMutatingRequestsInFlight int
	// InFlightQueueLength is how many requests one user may have waiting
	// for a seat; default 50. All users together may have four times
	// the limit (or this length, if larger) waiting.
	InFlightQueueLength int
	// InFlightQueueTimeout is how long a request waits for a seat before
	// it gets 429; default a quarter of RequestTimeout.
	InFlightQueueTimeout time.Duration
	// RequestTimeout bounds every request but watches (kube-apiserver's
	// --request-timeout, default 60s); a client's smaller timeout=
	// parameter wins. Under it, a create, update, patch or delete of one
	// object is bound to 34 s, as kube-apiserver's are. A request that
	// runs out of time gets 504 Timeout, also when its store write is
	// under way (the write may still be applied). Negative: no timeout.
	RequestTimeout time.Duration
	// ShutdownDelayDuration is how long [Server.Shutdown] keeps serving
	// with /readyz failing before it turns requests away
	// (--shutdown-delay-duration).
	ShutdownDelayDuration time.Duration
	// HealthChecks are added to /livez, /readyz and /healthz.
	HealthChecks []HealthCheck
	// ReadinessChecks are added to /readyz and /healthz only.
	ReadinessChecks []HealthCheck
	// Observer receives the server's measurements (metrics); nil: none.
	Observer Observer
	// Tracer traces requests; nil: no tracing.
	Tracer Tracer
}

// WatchCacheOptions tune the watch caches; each zero value means the
// default of the same field of watch.Options.
type WatchCacheOptions struct {
	// EventWindow is the most events a cache keeps for watches to start
	// from; EventWindowDuration how long it keeps one at most.
	EventWindow         int
	EventWindowDuration time.Duration
	// EventWindowBytes bounds the stored bytes a cache's window holds
	// (each event counts its new and previous values); negative means
	// no byte bound.
	EventWindowBytes int64
	// SnapshotTTL is how long a past state stays readable from memory
	// (for Exact and continuation lists); negative keeps none.
	SnapshotTTL time.Duration
	// WatcherBuffer is the capacity of each watcher's channel, and
	// StallTimeout how long a watcher may block on a full one before it
	// is ended as too slow.
	WatcherBuffer int
	StallTimeout  time.Duration
	// BookmarkInterval is how often watchers that allow bookmarks get
	// one.
	BookmarkInterval time.Duration
	// FreshnessTimeout bounds how long a read waits for the cache to
	// reach the revision it needs.
	FreshnessTimeout time.Duration
}

// watchOptions are the options of the caches of the server's resources.
func (s *catalog) watchOptions() watch.Options {
	o := s.opts.WatchCache
	return watch.Options{
		EventWindow: o.EventWindow, EventWindowDuration: o.EventWindowDuration,
		EventWindowBytes: o.EventWindowBytes, SnapshotTTL: o.SnapshotTTL,
		WatcherBuffer: o.WatcherBuffer, StallTimeout: o.StallTimeout, BookmarkInterval: o.BookmarkInterval,
		FreshnessTimeout: o.FreshnessTimeout, Counters: &s.counters,
	}
}

// WatchCounters is [Server.WatchCounters].
func (s *catalog) WatchCounters() *watch.Counters { return &s.counters }

// VersionInfo is the body of /version.
type VersionInfo struct {
	Major        string `json:"major"`
	Minor        string `json:"minor"`
	GitVersion   string `json:"gitVersion"`
	GitCommit    string `json:"gitCommit"`
	GitTreeState string `json:"gitTreeState"`
	BuildDate    string `json:"buildDate"`
	GoVersion    string `json:"goVersion"`
	Compiler     string `json:"compiler"`
	Platform     string `json:"platform"`
}

// server is what a Server is made of; its methods do the work of
// Server's, and the rooms under apiserver/ do the rest.
type server struct {
	shared
	kinds catalog

	operations
	instrument *filters.Instrument
	reviews    reviews.Handler
}

// catalog is the server's table of served resources: registering,
// installing and removing kinds, sealing the table on the first request
// and publishing what requests see.
type catalog struct {
	*shared

	mu        sync.RWMutex
	errs      []error // every registration problem, in order
	broken    error   // set at sealing when errs is not empty
	sealed    bool
	resources map[resourceKey]*handlers.Handler
	groups    []string // group names in registration order
	// served is what requests see: the documents and the routing table,
	// published whole at sealing and at every Install and Uninstall.
	served   atomic.Pointer[discoveryDocs]
	counters watch.Counters
}

// shared is what the server's parts share: its options, and what the
// handlers of every resource share.
type shared struct {
	opts Options
	handlers.Core
}

// resourceKey locates a resource: group, version and plural name.
type resourceKey struct{ group, version, resource string }

// Server serves the registered kinds. Build it with [New], register kinds,
// check [Server.Err] and mount it.
//
// A server fails closed: when any registration failed it serves nothing,
// answering every request with a 500 Status that names the registration
// errors (and logging them once), so that a host which forgot to check
// Err never serves part of its API. Registering after the first request
// panics, as http.ServeMux does for conflicting patterns.
type Server struct{ s *server }

var _ http.Handler = (*Server)(nil)

// New returns a Server with the given options.
func New(opts Options) *Server { return &Server{newServer(opts)} }

// newServer builds the server of New.
func newServer(opts Options) *server {
	if opts.Storage == nil {
		opts.Storage = memory.New(memory.Options{})
	}
	if opts.MaxRequestBodyBytes <= 0 {
		opts.MaxRequestBodyBytes = 3 << 20
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.Codecs == nil {
		opts.Codecs = codec.NewRegistry(codec.JSON{}, codec.YAML{}, protobuf.New(), cbor.Serializer{})
	}
	if opts.Version.GitVersion == "" {
		opts.Version = defaultVersion()
	}
	if opts.MinWatchTimeout <= 0 {
		opts.MinWatchTimeout = 30 * time.Minute
	}
	s := &server{
		shared: shared{opts: opts, Core: handlers.Core{Log: opts.Logger, Codecs: opts.Codecs, WriteTimeout: filters.MaxWriteTimeout,
			MaxRequestBodyBytes: opts.MaxRequestBodyBytes, MinWatchTimeout: opts.MinWatchTimeout,
			WatchStallTimeout: opts.WatchCache.StallTimeout}},
	}
	s.kinds.shared, s.kinds.resources = &s.shared, make(map[resourceKey]*handlers.Handler)
	s.initOperations()
	s.Admission = admission.Chain{Mutating: s.opts.MutatingAdmission, Validating: s.opts.ValidatingAdmission}
	s.Guard = filters.Guard{Authenticator: opts.Authenticator, Authorizer: opts.Authorizer, Audit: opts.Audit,
		Log: s.Log, WriteError: s.WriteError}
	s.limits.WriteError = s.Guard.WriteError
	s.instrument = filters.NewInstrument(s.Observer, s.Tracer, s.boundLabels, s.serveHTTP)
	s.reviews = reviews.Handler{Authenticator: opts.Authenticator, APIAudiences: opts.APIAudiences,
		Authorizer: s.Guard.EffectiveAuthorizer(), Decode: s.DecodeReview,
		Write: s.WriteReview, WriteError: s.Guard.WriteError}
	return s
}

var (
	dnsLabel     = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	dnsSubdomain = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
)

// Register is [Server.Register].
func (s *catalog) Register(k Kind) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sealed {
		panic(fmt.Sprintf("apiserver: Register of kind %s called after the server started serving", k.Kind))
	}
	if err := s.register(k); err != nil {
		s.errs = append(s.errs, fmt.Errorf("apiserver: kind %s: %w", k.Kind, err))
	}
}

func (s *catalog) register(k Kind) error {
	b, err := s.build(k)
	if err != nil {
		return err
	}
	for _, h := range b.handlers {
		if err := s.conflicts(&h.Resource.Kind, false, false); err != nil {
			b.stop()
			return err
		}
	}
	for _, h := range b.handlers {
		s.insert(h)
	}
	return nil
}

// builtKind is a kind compiled: the handlers of its served versions,
// which share the watch cache of its storage version's resource.
type builtKind struct {
	handlers []*handlers.Handler
	stor     *registry.Resource
}

// stop stops the kind's watch cache.
func (b *builtKind) stop() { b.stor.Cache.Stop() }

// build checks a kind completely and compiles it into the handlers of
// its served versions, whose watch cache is started. It does not touch
// the server's table of resources.
func (s *catalog) build(k Kind) (*builtKind, error) {
	kinds, served, vs, err := registry.ExpandVersions(k)
	if err != nil {
		return nil, err
	}
	b := &builtKind{}
	for i, vk := range kinds {
		r, err := s.buildVersion(vk, vs, b.stor)
		if err != nil {
			if b.stor != nil {
				b.stop()
			}
			if vs != nil {
				err = fmt.Errorf("version %s: %w", vk.Version, err)
			}
			return nil, err
		}
		if b.stor == nil {
			b.stor = r
			r.Store = filters.GuardStore(r.Store, s.StartSpan)
		}
		if served[i] {
			b.handlers = append(b.handlers, &handlers.Handler{Core: &s.Core, Resource: r})
		}
	}
	return b, nil
}

// buildVersion compiles one version of a kind into a resource; stor is
// the resource of the kind's storage version, nil when k is it.
func (s *catalog) buildVersion(k Kind, vs *registry.VersionSet, stor *registry.Resource) (*registry.Resource, error) {
	plan, err := s.prepare(&k)
	if err != nil {
		return nil, err
	}
	if k.Storage == nil {
		k.Storage = s.opts.Storage
	}
	wo := s.watchOptions()
	if o := s.Observer; o != nil {
		group, resource := k.Group, k.Resource
		wo.ConsistentRead = func(fallback, success bool) { o.ObserveConsistentRead(group, resource, fallback, success) }
	}
	return registry.NewResource(k, plan, wo, s.Codecs, s.opts.StorageMediaType, vs, stor)
}

// checkVersions checks a kind in every version, as build does, without
// building it.
func (s *catalog) checkVersions(k Kind) ([]Kind, error) {
	kinds, _, _, err := registry.ExpandVersions(k)
	if err != nil {
		return nil, err
	}
	for i := range kinds {
		if _, err := s.prepare(&kinds[i]); err != nil {
			return nil, err
		}
	}
	return kinds, nil
}

// prepare checks a kind, fills in its defaults and compiles its schema.
func (s *catalog) prepare(k *Kind) (*schemaplan.Plan, error) {
	if err := checkKind(k); err != nil {
		return nil, err
	}
	if k.Singular == "" {
		k.Singular = strings.ToLower(k.Kind)
	}
	if k.Schema == nil {
		sch, err := schema.FromType(registry.TypeOf(k.New()))
		if err != nil {
			return nil, err
		}
		k.Schema = sch
	}
	return schemaplan.Compile(k.Schema, k.New, s.opts.RuleEngine)
}

// checkKind checks the names and options of a kind.
func checkKind(k *Kind) error {
	switch {
	case k.Kind == "" || k.Resource == "" || k.Version == "":
		return errors.New("Kind, Resource and Version are required")
	case k.New == nil:
		return errors.New("New is required")
	case k.Group != "" && !dnsSubdomain.MatchString(k.Group):
		return fmt.Errorf("group %q is not a DNS subdomain", k.Group)
	case !registry.ValidVersion(k.Version):
		return fmt.Errorf("version %q is not a DNS-1035 label (v1, v1beta1, v2alpha3, ...)", k.Version)
	case !dnsLabel.MatchString(k.Resource):
		return fmt.Errorf("resource %q is not a lower-case DNS label", k.Resource)
	case k.Resource == "namespaces" && k.Group == "" && k.Namespaced:
		return errors.New("the core namespaces resource must be cluster-scoped")
	}
	switch k.DeletePropagation {
	case "", meta.DeletePropagationBackground, meta.DeletePropagationForeground, meta.DeletePropagationOrphan:
	default:
		return fmt.Errorf("DeletePropagation %q is not Background, Foreground or Orphan", k.DeletePropagation)
	}
	if err := registry.CheckStoredAs(k); err != nil {
		return err
	}
	if sc := k.Subresources.Scale; sc != nil && (sc.SpecReplicasPath == "" || sc.StatusReplicasPath == "") {
		return errors.New("Subresources.Scale needs SpecReplicasPath and StatusReplicasPath")
	}
	return nil
}

// conflicts reports why k cannot be served next to the resources the
// server has. With live, k may take the place of a kind installed at run
// time under the same group and resource, in any of its versions; with
// registeredOnly, kinds installed at run time are not considered. s.mu
// is held.
func (s *catalog) conflicts(k *Kind, live, registeredOnly bool) error {
	key := resourceKey{k.Group, k.Version, k.Resource}
	if h, dup := s.resources[key]; dup && !(live && h.Live) {
		return fmt.Errorf("resource %s is already registered", k.GroupResource())
	}
	for hk, h := range s.resources {
		if hk == key || (live && h.Live && hk.group == k.Group && hk.resource == k.Resource) || (registeredOnly && h.Live) {
			continue
		}
		have := &h.Resource.Kind
		if have.Group == k.Group && have.Version == k.Version && have.Kind == k.Kind {
			return fmt.Errorf("kind %s is already registered in %s", k.Kind, k.GroupVersion())
		}
		if err := secondVersion(have, k); err != nil {
			return err
		}
	}
	return nil
}

// insert adds (or replaces) a resource's handler; s.mu is held.
func (s *catalog) insert(h *handlers.Handler) {
	k := &h.Resource.Kind
	s.resources[resourceKey{k.Group, k.Version, k.Resource}] = h
	if !contains(s.groups, k.Group) {
		s.groups = append(s.groups, k.Group)
	}
}

// secondVersion refuses k when it serves the kind or resource of have in
// another version of the same group, registered separately: versions of
// one resource share its storage and are converted into one another, so
// they are registered together, in Kind.Versions.
func secondVersion(have, k *Kind) error {
	if have.Group != k.Group || have.Version == k.Version || (have.Kind != k.Kind && have.Resource != k.Resource) {
		return nil
	}
	return fmt.Errorf("%s (kind %s) is already served in version %s: register every version of a kind "+
		"(here %s too) in one Kind, with Kind.Versions, so that they share storage and convert to one another",
		have.GroupResource(), have.Kind, have.Version, k.Version)
}

// Close is [Server.Close].
func (s *catalog) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, h := range s.resources {
		h.Resource.Cache.Stop()
	}
}

// Err is [Server.Err].
func (s *catalog) Err() error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return errors.Join(s.errs...)
}

// seal freezes registration and builds the discovery and OpenAPI documents
// on the first request.
func (s *catalog) seal() *discoveryDocs {
	if d := s.served.Load(); d != nil {
		return d
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if d := s.served.Load(); d != nil {
		return d
	}
	s.sealed = true
	if err := errors.Join(s.errs...); err != nil {
		s.Log.Error("serving nothing: registering the API failed", "err", err)
		s.broken = status.InternalError(fmt.Errorf("the server's API failed to register: %w", err))
	}
	return s.publish()
}

// publish builds the documents and the routing table from the resources
// and makes them what requests see; s.mu is held.
func (s *catalog) publish() *discoveryDocs {
	d := buildDiscovery(s.sortedResources(), s.groups)
	d.handlers = maps.Clone(s.resources)
	for _, err := range d.OpenAPIErrors() {
		s.Log.Error("building OpenAPI document", "err", err)
	}
	s.served.Store(d)
	return d
}

func (s *catalog) sortedResources() []*registry.Resource {
	out := make([]*registry.Resource, 0, len(s.resources))
	for _, h := range s.resources {
		out = append(out, h.Resource)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].Kind, out[j].Kind
		if a.Group != b.Group {
			return indexOf(s.groups, a.Group) < indexOf(s.groups, b.Group)
		}
		if a.Version != b.Version {
			return a.Version < b.Version
		}
		return a.Resource < b.Resource
	})
	return out
}

func (s *catalog) lookup(group, version, res string) *handlers.Handler {
	return s.resources[resourceKey{group, version, res}]
}

func contains(list []string, v string) bool { return indexOf(list, v) >= 0 }

func indexOf(list []string, v string) int {
	for i, e := range list {
		if e == v {
			return i
		}
	}
	return -1
}
