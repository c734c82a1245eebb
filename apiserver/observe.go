package apiserver

import (
	"context"

	"github.com/kapi-dev/kapi/apiserver/observe"
)

// The observation types live in package observe, which the request
// filters fill in without importing this package; they keep their names
// here for hosts.
type (
	Observer      = observe.Observer
	RequestLabels = observe.RequestLabels
	RequestRecord = observe.RequestRecord
	ResourceStats = observe.ResourceStats
	Tracer        = observe.Tracer
	Span          = observe.Span
)

// startSpan starts a child span when the server has a tracer; the
// returned function ends it.
func (c *core) startSpan(ctx context.Context, name string) (context.Context, func(error)) {
	if c.tracer == nil {
		return ctx, endNothing
	}
	ctx, sp := c.tracer.Start(ctx, name)
	if sp == nil {
		return ctx, endNothing
	}
	return ctx, sp.End
}

func endNothing(error) {}
