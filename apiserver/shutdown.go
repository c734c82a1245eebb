package apiserver

import "context"

// Shutdown is [Server.Shutdown].
func (s *server) Shutdown(ctx context.Context) error {
	defer s.kinds.Close()
	return s.shutdown.Run(ctx, s.opts.ShutdownDelayDuration)
}
