// Package apiserver serves Kubernetes-style resource APIs from a Go
// service. A host builds a [Server] with [New], registers its kinds with
// [Server.Register] and mounts the server, an http.Handler, on its own mux:
//
//	srv := apiserver.New(apiserver.Options{})
//	srv.Register(apiserver.Kind{
//		Group: "stable.example.com", Version: "v1",
//		Kind: "Widget", Resource: "widgets", Namespaced: true,
//		New: func() meta.Object { return &Widget{} },
//	})
//	if err := srv.Err(); err != nil { ... }
//	mux.Handle("/", srv)
//
// # What it serves
//
// Discovery (/api, /apis, /apis/G, /apis/G/V, legacy and aggregated), the
// OpenAPI v3 documents kubectl reads for validation and explain, health
// endpoints, and for every kind the verbs get, list, watch, create, update,
// patch, delete and deletecollection under
// /apis/G/V/[namespaces/NS/]RESOURCE[/NAME[/SUBRESOURCE]].
//
// # Patches and managedFields
//
// PATCH accepts JSON patches, merge patches, strategic merge patches (for
// kinds with Go types; kinds served as meta.Unstructured refuse them with
// 415, as custom resources do) and server-side apply
// (application/apply-patch+yaml, which creates a missing object). Every
// write records its manager in metadata.managedFields: the fieldManager
// query parameter, or the User-Agent's product ("kubectl" for
// kubectl/v1.35.0). The package patch does the work.
//
// # Errors
//
// Every failure is a Kubernetes Status with the code, reason, message and
// causes kube-apiserver would send; a panic in a handler becomes a 500
// Status, never a dropped connection.
package apiserver
