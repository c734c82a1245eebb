// Package requestinfo reads what a request is from its method, path and
// query alone, before it is routed: the path split into segments once
// ([Path]), the class the filters act on ([Class]: long-running,
// mutating, probe), the attributes authorizers and audit policies judge
// ([Attributes], as kube-apiserver's request info fills them) and the
// labels of the request metrics ([Labels]).
//
// It is the first step of the request path: every filter after it
// (authentication, audit, authorization, in-flight limits, timeouts) and
// the router read what it worked out instead of parsing the request
// again.
package requestinfo
