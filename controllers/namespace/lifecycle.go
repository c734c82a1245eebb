package namespace

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/controllers/internal/apiclient"
	"github.com/kapi-dev/kapi/kinds/corev1"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// Immortal are the namespaces every server has and none may delete.
var Immortal = []string{corev1.NamespaceDefault, corev1.NamespaceSystem, corev1.NamespacePublic}

// How long a namespace just deleted is read from the server rather than
// the mirror, which may not have seen it turn Terminating yet; and how
// long a write waits for the mirror's first list.
const (
	forceLiveLookupTTL = 30 * time.Second
	readyWait          = 5 * time.Second
)

var namespacesGR = meta.GroupResource{Resource: "namespaces"}

// Lifecycle is the admission check kube-apiserver's NamespaceLifecycle
// plugin makes: a namespaced object may only be written in a namespace
// that exists, created only in one that is not Terminating, and the
// immortal namespaces may not be deleted. It reads namespaces from a
// watch-fed mirror (see [Lifecycle.Run]) and asks the server when the
// mirror does not know a namespace, or may be behind on it.
type Lifecycle struct {
	mu        sync.RWMutex
	c         *apiclient.Client
	phases    map[string]string // namespace → phase
	forceLive map[string]time.Time
	ready     chan struct{}
}

// NewLifecycle returns a Lifecycle; pass its Admit to the server's
// Options.MutatingAdmission, then call Run with the server.
func NewLifecycle() *Lifecycle {
	return &Lifecycle{phases: map[string]string{}, forceLive: map[string]time.Time{}, ready: make(chan struct{})}
}

// Run mirrors the server's namespaces until ctx is done.
func (l *Lifecycle) Run(ctx context.Context, h http.Handler) {
	c := apiclient.New(h)
	l.mu.Lock()
	l.c = c
	l.mu.Unlock()
	rf := c.NewReflector("/api/v1/namespaces", func(typ string, obj *apiclient.Object) {
		l.mu.Lock()
		defer l.mu.Unlock()
		if typ == "DELETED" {
			delete(l.phases, obj.Metadata.Name)
			return
		}
		l.phases[obj.Metadata.Name] = phaseOf(obj)
	}, nil)
	go func() {
		select {
		case <-rf.Synced():
			close(l.ready)
		case <-ctx.Done():
		}
	}()
	rf.Run(ctx)
}

// phaseOf reads a namespace's phase from metadata alone: one being
// deleted is Terminating.
func phaseOf(obj *apiclient.Object) string {
	if obj.Metadata.DeletionTimestamp != nil {
		return corev1.NamespaceTerminating
	}
	return corev1.NamespaceActive
}

// Admit is the apiserver.AdmissionFunc.
func (l *Lifecycle) Admit(ctx context.Context, req *apiserver.AdmissionRequest) error {
	isNamespace := req.Kind.Group == "" && req.Kind.Kind == "Namespace"
	if isNamespace {
		if req.Operation == apiserver.OperationDelete {
			for _, n := range Immortal {
				if req.Name == n {
					return status.Forbidden(req.Resource, req.Name, errors.New("this namespace may not be deleted"))
				}
			}
			if !req.DryRun {
				l.mu.Lock()
				l.forceLive[req.Name] = time.Now().Add(forceLiveLookupTTL)
				l.mu.Unlock()
			}
		}
		return nil
	}
	if req.Namespace == "" || req.Operation == apiserver.OperationDelete {
		return nil
	}
	phase, err := l.phase(ctx, req.Namespace)
	if err != nil {
		return err
	}
	if req.Operation == apiserver.OperationCreate && phase == corev1.NamespaceTerminating {
		e := status.Forbidden(req.Resource, req.Name,
			fmt.Errorf("unable to create new content in namespace %s because it is being terminated", req.Namespace))
		e.Status.Details.Causes = append(e.Status.Details.Causes, meta.StatusCause{
			Type:    "NamespaceTerminating",
			Message: fmt.Sprintf("namespace %s is being terminated", req.Namespace),
			Field:   "metadata.namespace",
		})
		return e
	}
	return nil
}

// phase returns the phase of namespace ns: from the mirror, or from the
// server when the mirror does not have it or it was just deleted. A
// missing namespace is a 404 NotFound of the namespace.
func (l *Lifecycle) phase(ctx context.Context, ns string) (string, error) {
	if err := l.awaitReady(ctx); err != nil {
		return "", err
	}
	l.mu.RLock()
	phase, known := l.phases[ns]
	until, forced := l.forceLive[ns]
	c := l.c
	l.mu.RUnlock()
	if known && !(forced && time.Now().Before(until) && phase == corev1.NamespaceActive) {
		return phase, nil
	}
	var obj corev1.Namespace
	if err := c.Get(ctx, "/api/v1/namespaces/"+ns, &obj); err != nil {
		if status.IsNotFound(err) {
			return "", status.NotFound(namespacesGR, ns)
		}
		return "", status.InternalError(err)
	}
	if obj.DeletionTimestamp != nil {
		return corev1.NamespaceTerminating, nil
	}
	return obj.Status.Phase, nil
}

// awaitReady waits for the mirror's first list, for at most readyWait.
// Once the mirror is ready, as it is for every write but the first few,
// it returns at once, without making a timer.
func (l *Lifecycle) awaitReady(ctx context.Context) error {
	select {
	case <-l.ready:
		return nil
	default:
	}
	t := time.NewTimer(readyWait)
	defer t.Stop()
	select {
	case <-l.ready:
		return nil
	case <-t.C:
		return status.Forbidden(meta.GroupResource{}, "", errors.New("not yet ready to handle request"))
	case <-ctx.Done():
		return ctx.Err()
	}
}

// EnsureSystem creates the immortal namespaces that do not exist yet. It
// is idempotent, so every server sharing a store may call it as it
// starts.
func EnsureSystem(ctx context.Context, h http.Handler) error {
	c := apiclient.New(h)
	for _, name := range Immortal {
		ns := corev1.Namespace{TypeMeta: meta.TypeMeta{Kind: "Namespace", APIVersion: "v1"}, ObjectMeta: meta.ObjectMeta{Name: name}}
		if err := c.Create(ctx, "/api/v1/namespaces", &ns); err != nil && !status.IsAlreadyExists(err) {
			return fmt.Errorf("creating namespace %s: %w", name, err)
		}
	}
	return nil
}
