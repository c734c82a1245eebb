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
//	apiserver        the server a host builds: Register kinds, routing,
//	                 discovery, every verb and subresource, admission
//	openapi          OpenAPI v3 documents, for kubectl validation and explain
//	patch            JSON, merge and strategic merge patches, server-side
//	                 apply and managedFields
//	fieldvalidation  the fieldValidation directive (Ignore, Warn, Strict) and
//	                 unknown and duplicate fields, as warnings or a 400
//	schema           one model of a kind's structure, from Go types or an
//	                 OpenAPI v3 document: validation, defaulting, pruning
//	codec            media types and serializers (JSON, YAML; codec/protobuf,
//	                 codec/cbor), content negotiation, watch framing
//	watch            the watch cache every read is served from
//	storage          the storage interface (etcd v3's model), storage/memory,
//	                 storage/storagetest; storage/etcd is its own module
//	resourceversion  resourceVersion, limit and continue semantics
//	auth             authentication (x509, tokens, front proxy), impersonation,
//	                 the Authorizer interface; auth/rbac the RBAC authorizer
//	audit            audit.k8s.io/v1 events at the level a Policy chooses
//	status           errors as Kubernetes Status values, one per reason
//	meta             wire types shared by all: ObjectMeta, Status, Table, ...
//
// The examples module (./examples) holds the Widget server, typed core/v1
// and coordination/v1 kinds, and the end-to-end tests that run kubectl,
// client-go and controller-runtime against kapi.
package kapi
