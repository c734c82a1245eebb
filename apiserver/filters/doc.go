// Package filters holds the steps a request meets before it is routed to
// a handler, in that order:
//
//  0. [Instrument] reads what the request is (package requestinfo) once
//     and, with an observer or a tracer, opens its span and reports its
//     labels and outcome when it ends;
//  1. [Guard]: authentication (a user the host put on the context is
//     kept), impersonation, the audit record (its request and response
//     bodies, [AuditObject] filling in the object) and authorization;
//  2. [Limits]: a draining server turns requests away (503), the
//     in-flight limits ([FairLimiter]) queue them per user, served in
//     turn, for read-only and for mutating requests (429), and
//  3. the request's deadline ([WithTimeout], [RequestTimeout]) ends it: a
//     504 before the response starts, a cut connection after, and a gate
//     ([BeginWrite], [EndWrite], [BoundWrite]) that keeps a store write
//     and the 504 from both happening. Long-running requests (watches)
//     skip the limits and the deadline and end when the server drains.
//
// Package apiserver runs them on every request, around its router; a
// host can put its own non-resource endpoints behind the same
// authentication, audit and authorization with [Guard.Handler] (or
// apiserver's Server.NonResourceHandler, which is that guard).
package filters
