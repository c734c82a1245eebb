// Package discovery builds and serves the documents clients read to learn
// what a server serves: discovery (/api, /apis, /apis/G, /apis/G/V, in the
// legacy and the aggregated apidiscovery.k8s.io/v2 form, with ETags) and
// the OpenAPI v3 index and per-group-version documents.
//
// In the request path it sits at the router: once a request is
// authenticated, authorized and past the limits, the server answers the
// document paths from the [Docs] it built when it last published its
// resources, which are described to this package by [Resource] values
// alone; routing the resource requests stays with the server.
package discovery
