package eventsv1

import (
	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/kinds/corev1"
	"github.com/kapi-dev/kapi/meta"
)

// storedAsCore keeps events.k8s.io Events in the core Events' storage,
// as kube-apiserver does: an Event written through either API is read,
// updated, watched and deleted through both.
func storedAsCore() *apiserver.StoredAs {
	core := corev1.EventKind()
	return &apiserver.StoredAs{
		Group: core.Group, Version: core.Version, Kind: core.Kind, Resource: core.Resource,
		New:        core.New,
		ToStored:   func(obj meta.Object) (meta.Object, error) { return ToCore(obj.(*Event)), nil },
		FromStored: func(obj meta.Object) (meta.Object, error) { return FromCore(obj.(*corev1.Event)), nil },
	}
}

// ToCore returns e as a core/v1 Event: regarding is the involved object,
// note the message, and the deprecated fields the core Event's source,
// timestamps and count. The result shares e's metadata, references and
// series.
func ToCore(e *Event) *corev1.Event {
	c := &corev1.Event{
		TypeMeta:            meta.TypeMeta{APIVersion: "v1", Kind: "Event"},
		ObjectMeta:          e.ObjectMeta,
		InvolvedObject:      e.Regarding,
		Reason:              e.Reason,
		Message:             e.Note,
		Source:              e.DeprecatedSource,
		FirstTimestamp:      e.DeprecatedFirstTimestamp,
		LastTimestamp:       e.DeprecatedLastTimestamp,
		Count:               e.DeprecatedCount,
		Type:                e.Type,
		EventTime:           e.EventTime,
		Action:              e.Action,
		Related:             e.Related,
		ReportingController: e.ReportingController,
		ReportingInstance:   e.ReportingInstance,
	}
	if s := e.Series; s != nil {
		c.Series = &corev1.EventSeries{Count: s.Count, LastObservedTime: s.LastObservedTime}
	}
	return c
}

// FromCore returns a core/v1 Event as an events.k8s.io/v1 Event, the
// inverse of [ToCore]. The result shares c's metadata, references and
// series.
func FromCore(c *corev1.Event) *Event {
	e := &Event{
		TypeMeta:                 meta.TypeMeta{APIVersion: "events.k8s.io/v1", Kind: "Event"},
		ObjectMeta:               c.ObjectMeta,
		EventTime:                c.EventTime,
		ReportingController:      c.ReportingController,
		ReportingInstance:        c.ReportingInstance,
		Action:                   c.Action,
		Reason:                   c.Reason,
		Regarding:                c.InvolvedObject,
		Related:                  c.Related,
		Note:                     c.Message,
		Type:                     c.Type,
		DeprecatedSource:         c.Source,
		DeprecatedFirstTimestamp: c.FirstTimestamp,
		DeprecatedLastTimestamp:  c.LastTimestamp,
		DeprecatedCount:          c.Count,
	}
	if s := c.Series; s != nil {
		e.Series = &EventSeries{Count: s.Count, LastObservedTime: s.LastObservedTime}
	}
	return e
}
