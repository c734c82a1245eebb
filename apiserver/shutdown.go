package apiserver

import "context"

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
	defer s.Close()
	return s.shutdown.Run(ctx, s.opts.ShutdownDelayDuration)
}
