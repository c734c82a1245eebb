// Package handlers holds the verbs' handlers: one [Handler] per served
// version of a kind, with a method per verb — get, list and watch, served
// from the registry's watch cache; create, update, patch (JSON, merge,
// strategic merge, apply), delete and deletecollection, and the scale
// subresource, which decode and check the request, build a
// pipeline.Write and run it — and the kind-aware side of answering: the
// splices of stored values into JSON gets, lists and watch events, the
// encodings kept per object version, Tables and partial object metadata,
// negotiated per request and written through responsewriters.
//
// It sits after the router (package apiserver), which resolves a request
// to its Handler and [Request], and above the write pipeline and the
// registry. [Core] is what the handlers of every kind share: codecs, the
// admission chain, the guard, the response bodies and the server's
// limits.
package handlers
