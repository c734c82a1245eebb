// Package apiserver serves Kubernetes-style resource APIs from a Go
// service: build a [Server] with [New], [Server.Register] the kinds, check
// [Server.Err] and mount it ("/", or under [http.StripPrefix]):
//
//	srv := apiserver.New(apiserver.Options{})
//	srv.Register(apiserver.Kind{Group: "stable.example.com", Version: "v1",
//		Kind: "Widget", Resource: "widgets", Namespaced: true,
//		New: func() meta.Object { return &Widget{} }})
//	mux.Handle("/", srv)
//
// It serves discovery, OpenAPI v3, health and, for every kind, get, list,
// watch, create, update, patch (JSON, merge, strategic, apply) and
// deletes, each failure a Status as kube-apiserver words it. A server
// whose registrations failed answers only 500s. Kinds in several versions
// are stored in one and converted per request ([Kind].Versions); what a
// host declares lives in package kinds, which this package's names alias.
//
// A request meets, in order, the rooms under apiserver/: requestinfo
// (what it is), filters (instrumentation, authentication, audit,
// authorization, in-flight limits, deadline), this package's router,
// then the verb's handler (internal/handlers), which reads from the
// watch cache or builds a write and runs it through the write pipeline
// (internal/pipeline, pipeline.Write.Run: defaults,
// [Options].MutatingAdmission, validation, [Options].ValidatingAdmission,
// storage; admission is its own room) over the registry
// (internal/registry: a kind compiled for serving, its stored values and
// versions), and answers through internal/responsewriters and
// internal/tables. observe holds what the server reports ([Observer],
// [Tracer]). Package github.com/kapi-dev/kapi maps every package.
package apiserver
