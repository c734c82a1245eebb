package handlers

import (
	"context"
)

// StartSpan starts a child span when the server has a tracer; the
// returned function ends it.
func (c *Core) StartSpan(ctx context.Context, name string) (context.Context, func(error)) {
	if c.Tracer == nil {
		return ctx, endNothing
	}
	ctx, sp := c.Tracer.Start(ctx, name)
	if sp == nil {
		return ctx, endNothing
	}
	return ctx, sp.End
}

func endNothing(error) {}
