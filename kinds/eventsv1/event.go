// Package eventsv1 serves events.k8s.io/v1 Events with kapi, the API
// client-go's events broadcaster (and controller-runtime's
// GetEventRecorder) posts to.
//
// Event mirrors k8s.io/api/events/v1.Event field for field, with the same
// JSON names and protobuf field numbers and kapi's meta types; golden
// tests in the examples module hold the bytes equal.
package eventsv1

import (
	"context"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/kinds/corev1"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// Event reports something that happened to an object.
type Event struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata" protobuf:"bytes,1,opt,name=metadata"`
	// EventTime is when the event was first observed. Required.
	EventTime meta.MicroTime `json:"eventTime" protobuf:"bytes,2,opt,name=eventTime"`
	// Series is set for an event that keeps happening.
	Series *EventSeries `json:"series,omitempty" protobuf:"bytes,3,opt,name=series"`
	// ReportingController names the controller that emitted it.
	ReportingController string `json:"reportingController,omitempty" protobuf:"bytes,4,opt,name=reportingController"`
	// ReportingInstance names the controller's instance.
	ReportingInstance string `json:"reportingInstance,omitempty" protobuf:"bytes,5,opt,name=reportingInstance"`
	// Action is what was done, or failed, about the object.
	Action string `json:"action,omitempty" protobuf:"bytes,6,name=action"`
	// Reason is why the action was taken, in UpperCamelCase.
	Reason string `json:"reason,omitempty" protobuf:"bytes,7,name=reason"`
	// Regarding is the object the event is about.
	Regarding corev1.ObjectReference `json:"regarding,omitempty" protobuf:"bytes,8,opt,name=regarding"`
	// Related is a second object involved.
	Related *corev1.ObjectReference `json:"related,omitempty" protobuf:"bytes,9,opt,name=related"`
	// Note is a human-readable description, at most 1 kB.
	Note string `json:"note,omitempty" protobuf:"bytes,10,opt,name=note"`
	// Type is Normal or Warning.
	Type string `json:"type,omitempty" protobuf:"bytes,11,opt,name=type"`
	// DeprecatedSource is the core Event's source.
	DeprecatedSource corev1.EventSource `json:"deprecatedSource,omitempty" protobuf:"bytes,12,opt,name=deprecatedSource"`
	// DeprecatedFirstTimestamp is the core Event's firstTimestamp.
	DeprecatedFirstTimestamp meta.Time `json:"deprecatedFirstTimestamp,omitempty" protobuf:"bytes,13,opt,name=deprecatedFirstTimestamp"`
	// DeprecatedLastTimestamp is the core Event's lastTimestamp.
	DeprecatedLastTimestamp meta.Time `json:"deprecatedLastTimestamp,omitempty" protobuf:"bytes,14,opt,name=deprecatedLastTimestamp"`
	// DeprecatedCount is the core Event's count.
	DeprecatedCount int32 `json:"deprecatedCount,omitempty" protobuf:"varint,15,opt,name=deprecatedCount"`
}

// EventSeries describes an event that keeps happening.
type EventSeries struct {
	Count            int32          `json:"count" protobuf:"varint,1,opt,name=count"`
	LastObservedTime meta.MicroTime `json:"lastObservedTime" protobuf:"bytes,2,opt,name=lastObservedTime"`
}

// MaxNoteBytes bounds an Event's note, as kube-apiserver does.
const MaxNoteBytes = corev1.MaxNoteBytes

// EventKind is the registration of Event: /apis/events.k8s.io/v1
// events, short name ev, namespaced, selectable by the object it regards,
// reason, reporting controller and type.
func EventKind() apiserver.Kind {
	return apiserver.Kind{
		Group: "events.k8s.io", Version: "v1", Kind: "Event", Resource: "events", Singular: "event",
		ShortNames: []string{"ev"}, Namespaced: true,
		New: func() meta.Object { return &Event{} },
		Validate: func(_ context.Context, obj, old meta.Object) status.FieldErrors {
			var was *Event
			if old != nil {
				was = old.(*Event)
			}
			return validate(obj.(*Event), was)
		},
		StoredAs:         storedAsCore(),
		NoGeneration:     true,
		SelectableFields: fields(),
		// kube prints events.k8s.io Events as it prints core ones.
		PrinterColumns: corev1.EventColumns(func(obj meta.Object) *corev1.Event { return ToCore(obj.(*Event)) }),
	}
}

// fields are the field selectors kube-apiserver offers on
// events.k8s.io Events.
func fields() map[string]func(meta.Object) string {
	regarding := func(get func(r corev1.ObjectReference) string) func(meta.Object) string {
		return func(obj meta.Object) string { return get(obj.(*Event).Regarding) }
	}
	event := func(get func(e *Event) string) func(meta.Object) string {
		return func(obj meta.Object) string { return get(obj.(*Event)) }
	}
	return map[string]func(meta.Object) string{
		"regarding.kind":            regarding(func(r corev1.ObjectReference) string { return r.Kind }),
		"regarding.namespace":       regarding(func(r corev1.ObjectReference) string { return r.Namespace }),
		"regarding.name":            regarding(func(r corev1.ObjectReference) string { return r.Name }),
		"regarding.uid":             regarding(func(r corev1.ObjectReference) string { return r.UID }),
		"regarding.apiVersion":      regarding(func(r corev1.ObjectReference) string { return r.APIVersion }),
		"regarding.resourceVersion": regarding(func(r corev1.ObjectReference) string { return r.ResourceVersion }),
		"regarding.fieldPath":       regarding(func(r corev1.ObjectReference) string { return r.FieldPath }),
		"reason":                    event(func(e *Event) string { return e.Reason }),
		"reportingController":       event(func(e *Event) string { return e.ReportingController }),
		"type":                      event(func(e *Event) string { return e.Type }),
	}
}

// validate checks an Event written through events.k8s.io/v1 as
// kube-apiserver does: as the core Event it is stored as, with the
// stricter rules of this API (see corev1.ValidateEvent), its errors
// naming the core fields.
func validate(e, old *Event) status.FieldErrors {
	var was *corev1.Event
	if old != nil {
		was = ToCore(old)
	}
	return corev1.ValidateEvent(ToCore(e), was, true)
}
