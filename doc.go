// Package kapi is an embeddable library that serves Kubernetes-style
// resource APIs: a Go service registers its own kinds and mounts one
// http.Handler, and kubectl, client-go and controller-runtime work against
// it unchanged. This package holds no code; start with
// [github.com/kapi-dev/kapi/apiserver], whose example registers a kind and
// serves it.
//
// # Layout
//
// Packages import downwards only, from apiserver at the top to meta at the
// bottom, and keep no package-level state: everything hangs off the
// apiserver.Server a host builds.
//
//	apiserver        the server a host builds: Options, Register kinds,
//	                 the router and the catalog of kinds; its rooms, in the
//	                 order a request meets them:
//	  requestinfo    what a request is (path, class, attributes, labels)
//	  filters        authentication, audit, authorization, in-flight
//	                 limits and deadlines; Guard.Handler for a host's own
//	                 endpoints
//	  health         /livez, /readyz, /healthz and the shutdown sequence
//	  internal/discovery  discovery and OpenAPI documents
//	  internal/reviews    the self reviews (SelfSubjectReview, ...Rules...)
//	  internal/handlers   the verbs' handlers: get, list, watch, create,
//	                 update, patch, apply, deletes, scale; and answering
//	  internal/pipeline   the write pipeline (Write.Run, its numbered steps)
//	  admission      the write pipeline's admission step
//	  internal/schemaplan the schema compiled: defaults, pruning, validation
//	                 and CEL rules
//	  internal/registry   a kind compiled for serving: store, watch cache,
//	                 versions and conversion, stored values, store writes
//	  internal/responsewriters, internal/tables, internal/splice
//	                 encodings, compression, lists, Tables, splices
//	  kinds          what a host registers: Kind, versions, hooks, columns
//	  observe        what the server reports to metrics and tracing
//	controllers      the built-in controllers, run by one server at a time:
//	                 controllers/gc (garbage collection), controllers/namespace
//	                 (namespace lifecycle and deletion), controllers/leader
//	kinds            the built-in kinds, a package per group and version:
//	                 kinds/corev1 (Namespace, ConfigMap, Secret, Event,
//	                 ServiceAccount), kinds/eventsv1, kinds/coordinationv1,
//	                 kinds/apiextensionsv1 (CustomResourceDefinition); kinds
//	                 itself holds the tests that check them together
//	openapi          OpenAPI v3 documents, for kubectl validation and explain
//	patch            JSON, merge and strategic merge patches, server-side
//	                 apply and managedFields
//	fieldvalidation  the fieldValidation directive (Ignore, Warn, Strict) and
//	                 unknown and duplicate fields, as warnings or a 400
//	schema           one model of a kind's structure, from Go types or an
//	                 OpenAPI v3 document: validation, defaulting, pruning,
//	                 CEL rules and the RuleEngine interface
//	cel              the CEL engine of x-kubernetes-validations, its own
//	                 module so that the core does not carry cel-go
//	codec            media types and serializers (JSON, YAML; codec/protobuf,
//	                 codec/cbor), content negotiation, watch framing
//	watch            the watch cache every read is served from
//	storage          the storage interface (etcd v3's model), storage/memory,
//	                 storage/storagetest; storage/etcd is its own module
//	resourceversion  resourceVersion, limit and continue semantics
//	auth             authentication (x509, tokens, front proxy), impersonation,
//	                 the Authorizer interface; auth/rbac the RBAC authorizer
//	cel              x-kubernetes-validations rules with cel-go; its own module
//	audit            audit.k8s.io/v1 events at the level a Policy chooses
//	profiling        an opt-in pprof handler, for a host to mount behind
//	                 authorization (apiserver.Server.NonResourceHandler)
//	status           errors as Kubernetes Status values, one per reason
//	meta             wire types shared by all: ObjectMeta, Status, Table, ...
//	envtest          its own module: an in-process kapi in the shape of
//	                 controller-runtime's envtest.Environment, for controller tests
//	kube/runtimekind apimachinery API types (and single-version CRDs) served
//	                 as kapi kinds; the kube module, its own
//
// Adapters in modules of their own keep the core's requirements few:
// metrics/prometheus publishes kube-apiserver's metrics through
// apiserver.Observer, tracing/otel traces requests with OpenTelemetry
// through apiserver.Tracer.
//
// The examples module (./examples) holds the Widget server and the
// end-to-end tests that run kubectl, client-go, controller-runtime and
// Helm against kapi.
package kapi
