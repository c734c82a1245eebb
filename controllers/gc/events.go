package gc

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/kapi-dev/kapi/controllers/internal/apiclient"
	"github.com/kapi-dev/kapi/kinds/corev1"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// eventSource is the component the collector's Events name, kube's
// garbage collector's.
const eventSource = "garbage-collector-controller"

// maxQueuedEvents bounds the Events waiting to be written; more are
// dropped, as client-go's event broadcaster drops them.
const maxQueuedEvents = 1000

// recorder writes core/v1 Events about the objects the collector looks
// at, the way kube's garbage collector records them through client-go's
// event recorder, without holding up the graph: Events are queued and
// written by [recorder.run]. A server that does not serve core/v1 Events
// gets none.
type recorder struct {
	c     *apiclient.Client
	log   *slog.Logger
	queue chan *corev1.Event
	now   func() time.Time
}

func newRecorder(c *apiclient.Client, log *slog.Logger) *recorder {
	return &recorder{c: c, log: log, queue: make(chan *corev1.Event, maxQueuedEvents), now: time.Now}
}

// warn queues a Warning Event about the object ref names.
func (r *recorder) warn(ref corev1.ObjectReference, reason, message string) {
	select {
	case r.queue <- r.event(ref, corev1.EventTypeWarning, reason, message):
	default:
		r.log.Info("too many queued events, dropped one", "reason", reason, "object", ref.Name)
	}
}

// event is the Event client-go's recorder makes: in the object's
// namespace, or default for a cluster-scoped object, named after the
// object and the time.
func (r *recorder) event(ref corev1.ObjectReference, typ, reason, message string) *corev1.Event {
	t := r.now()
	ns := ref.Namespace
	if ns == "" {
		ns = corev1.NamespaceDefault
	}
	at := meta.NewTime(t)
	return &corev1.Event{
		TypeMeta:       meta.TypeMeta{Kind: "Event", APIVersion: "v1"},
		ObjectMeta:     meta.ObjectMeta{Name: fmt.Sprintf("%s.%x", ref.Name, t.UnixNano()), Namespace: ns},
		InvolvedObject: ref,
		Reason:         reason,
		Message:        message,
		Source:         corev1.EventSource{Component: eventSource},
		FirstTimestamp: at,
		LastTimestamp:  at,
		Count:          1,
		Type:           typ,
		// client-go's recorder reports as the source's component and
		// host; the collector's source names no host.
		ReportingController: eventSource,
	}
}

// run writes the queued Events until ctx is done.
func (r *recorder) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case ev := <-r.queue:
			path := "/api/v1/namespaces/" + ev.Namespace + "/events"
			err := r.c.Create(ctx, path, ev)
			if err != nil && !status.IsNotFound(err) && ctx.Err() == nil {
				r.log.Info("could not record an event", "reason", ev.Reason, "object", ev.InvolvedObject.Name, "err", err)
			}
		}
	}
}
