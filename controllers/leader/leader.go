// Package leader elects one leader among the kapi servers that share a
// store, over a coordination.k8s.io/v1 Lease, as client-go's
// leaderelection does: the leader renews the Lease; the others take it
// over once it has gone unrenewed for its duration, measured on their own
// clocks from when they last saw it change (so clocks need not agree).
// Writes are compare-and-swap on the Lease's resourceVersion, so at most
// one candidate wins each round.
//
// The Lease kind (package kinds/coordinationv1) must be served, and the
// Lease's namespace must exist when the server checks namespaces.
package leader

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/kapi-dev/kapi/controllers/internal/apiclient"
	"github.com/kapi-dev/kapi/kinds/coordinationv1"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// Options configures an election.
type Options struct {
	// Namespace and Name locate the Lease; default kube-system and
	// kapi-controllers.
	Namespace, Name string
	// Identity names this candidate; required and unique among them.
	Identity string
	// LeaseDuration is how long others wait after the last renewal
	// before taking over, in whole seconds as the Lease records it;
	// default 15s.
	LeaseDuration time.Duration
	// RenewDeadline is how long the leader keeps trying to renew before
	// it stops leading; default 10s.
	RenewDeadline time.Duration
	// RetryPeriod is the pause between attempts; default 2s.
	RetryPeriod time.Duration
	// Logger receives transitions; default: discard.
	Logger *slog.Logger
}

func (o *Options) defaults() error {
	if o.Identity == "" {
		return errors.New("leader: Identity is required")
	}
	if o.Namespace == "" {
		o.Namespace = "kube-system"
	}
	if o.Name == "" {
		o.Name = "kapi-controllers"
	}
	if o.LeaseDuration < time.Second {
		o.LeaseDuration = 15 * time.Second
	}
	if o.RenewDeadline <= 0 || o.RenewDeadline >= o.LeaseDuration {
		o.RenewDeadline = o.LeaseDuration * 2 / 3
	}
	if o.RetryPeriod <= 0 || o.RetryPeriod >= o.RenewDeadline {
		o.RetryPeriod = o.RenewDeadline / 5
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return nil
}

// elector is one candidate.
type elector struct {
	c    *apiclient.Client
	opts Options
	path string
	// observed is the Lease as last seen and when it was seen to change.
	observed     coordinationv1.LeaseSpec
	observedRV   string
	observedTime time.Time
}

// Run campaigns until ctx is done: each time this candidate wins, lead
// runs with a context that ends when it loses the Lease (or ctx ends).
// On the way out a held Lease is released so that another candidate
// takes over at once.
func Run(ctx context.Context, h http.Handler, opts Options, lead func(ctx context.Context)) error {
	if err := opts.defaults(); err != nil {
		return err
	}
	e := &elector{c: apiclient.New(h), opts: opts,
		path: "/apis/coordination.k8s.io/v1/namespaces/" + opts.Namespace + "/leases/" + opts.Name}
	for ctx.Err() == nil {
		if !e.acquire(ctx) {
			return nil
		}
		opts.Logger.Info("became leader", "lease", opts.Namespace+"/"+opts.Name, "identity", opts.Identity)
		leadCtx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			lead(leadCtx)
		}()
		e.renew(leadCtx)
		cancel()
		<-done
		opts.Logger.Info("stopped leading", "lease", opts.Namespace+"/"+opts.Name, "identity", opts.Identity)
	}
	e.release()
	return nil
}

// acquire tries every RetryPeriod until it holds the Lease; false when
// ctx ended first.
func (e *elector) acquire(ctx context.Context) bool {
	for {
		if e.tryAcquireOrRenew(ctx) {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(e.opts.RetryPeriod):
		}
	}
}

// renew renews every RetryPeriod until a renewal has failed for
// RenewDeadline, or ctx ends.
func (e *elector) renew(ctx context.Context) {
	last := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(e.opts.RetryPeriod):
		}
		if e.tryAcquireOrRenew(ctx) {
			last = time.Now()
			continue
		}
		if time.Since(last) > e.opts.RenewDeadline {
			return
		}
	}
}

// tryAcquireOrRenew takes the Lease if it is free, expired or ours, and
// reports whether this candidate holds it now.
func (e *elector) tryAcquireOrRenew(ctx context.Context) bool {
	now := meta.NowMicro()
	dur := int32(e.opts.LeaseDuration / time.Second)
	var lease coordinationv1.Lease
	err := e.c.Get(ctx, e.path, &lease)
	if status.IsNotFound(err) {
		lease = coordinationv1.Lease{ObjectMeta: meta.ObjectMeta{Name: e.opts.Name, Namespace: e.opts.Namespace},
			Spec: coordinationv1.LeaseSpec{HolderIdentity: &e.opts.Identity, LeaseDurationSeconds: &dur,
				AcquireTime: &now, RenewTime: &now, LeaseTransitions: new(int32)}}
		lease.APIVersion, lease.Kind = "coordination.k8s.io/v1", "Lease"
		err := e.c.Create(ctx, "/apis/coordination.k8s.io/v1/namespaces/"+e.opts.Namespace+"/leases", &lease)
		if err == nil {
			e.observe(&lease)
		}
		return err == nil
	}
	if err != nil {
		return false
	}
	if lease.ResourceVersion != e.observedRV {
		e.observe(&lease)
	}
	holder := deref(lease.Spec.HolderIdentity)
	mine := holder == e.opts.Identity
	expired := e.observedTime.Add(time.Duration(deref(lease.Spec.LeaseDurationSeconds)) * time.Second).Before(time.Now())
	if !mine && holder != "" && !expired {
		return false
	}
	spec := &lease.Spec
	if !mine {
		transitions := deref(spec.LeaseTransitions) + 1
		spec.LeaseTransitions, spec.AcquireTime = &transitions, &now
		spec.HolderIdentity = &e.opts.Identity
	}
	spec.RenewTime, spec.LeaseDurationSeconds = &now, &dur
	if err := e.c.Update(ctx, e.path, &lease); err != nil {
		return false
	}
	e.observe(&lease)
	return true
}

func (e *elector) observe(l *coordinationv1.Lease) {
	e.observed, e.observedRV, e.observedTime = l.Spec, l.ResourceVersion, time.Now()
}

// release gives the Lease up if this candidate holds it: the holder is
// cleared, so the next candidate need not wait for it to expire.
func (e *elector) release() {
	ctx, cancel := context.WithTimeout(context.Background(), e.opts.RetryPeriod)
	defer cancel()
	var lease coordinationv1.Lease
	if err := e.c.Get(ctx, e.path, &lease); err != nil || deref(lease.Spec.HolderIdentity) != e.opts.Identity {
		return
	}
	empty, one := "", int32(1)
	lease.Spec.HolderIdentity, lease.Spec.LeaseDurationSeconds = &empty, &one
	_ = e.c.Update(ctx, e.path, &lease)
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
