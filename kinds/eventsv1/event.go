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
	"reflect"

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
const MaxNoteBytes = 1024

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

// The bounds kube-apiserver puts on an Event's strings.
const (
	maxReportingInstance = 128
	maxAction            = 128
	maxReason            = 128
)

// validate checks what kube-apiserver checks of an Event written through
// events.k8s.io/v1: what it checks of every Event (see validateLegacy),
// and on create that the time is set, the type known, the series sound
// and the deprecated fields unset; on update, that nothing but the
// metadata and the series changes. An Event created through the core API
// may so be updated here without an eventTime.
func validate(e, old *Event) status.FieldErrors {
	errs := validateLegacy(e)
	if old != nil {
		if !reflect.DeepEqual(e.Series, old.Series) {
			errs = append(errs, validateSeries(e.Series)...)
		}
		return append(errs, validateImmutable(e, old)...)
	}
	if e.EventTime.IsZero() {
		errs = append(errs, status.Required(status.NewPath("eventTime"), ""))
	}
	if e.Type != corev1.EventTypeNormal && e.Type != corev1.EventTypeWarning {
		errs = append(errs, status.NotSupported(status.NewPath("type"), e.Type, []string{corev1.EventTypeNormal, corev1.EventTypeWarning}))
	}
	errs = append(errs, validateSeries(e.Series)...)
	for _, f := range []struct {
		name  string
		unset bool
	}{
		{"deprecatedFirstTimestamp", e.DeprecatedFirstTimestamp.IsZero()},
		{"deprecatedLastTimestamp", e.DeprecatedLastTimestamp.IsZero()},
		{"deprecatedCount", e.DeprecatedCount == 0},
		{"deprecatedSource", e.DeprecatedSource == corev1.EventSource{}},
	} {
		if !f.unset {
			errs = append(errs, status.InvalidValue(status.NewPath(f.name), "", "needs to be unset"))
		}
	}
	return errs
}

// validateLegacy is what kube-apiserver checks of every Event, whichever
// API writes it: an event without an eventTime regards an object in its
// namespace (or is in "default"); one with an eventTime names its
// reporter, action and reason, within their bounds.
func validateLegacy(e *Event) status.FieldErrors {
	var errs status.FieldErrors
	regNS := status.NewPath("regarding", "namespace")
	ns := e.Regarding.Namespace
	if e.EventTime.IsZero() {
		if ns == "" && e.Namespace != "" && e.Namespace != "default" || ns != "" && ns != e.Namespace {
			errs = append(errs, status.InvalidValue(regNS, ns, "does not match event.namespace"))
		}
		return errs
	}
	if ns == "" && e.Namespace != "default" && e.Namespace != "kube-system" || ns != "" && ns != e.Namespace {
		errs = append(errs, status.InvalidValue(regNS, ns, "does not match event.namespace"))
	}
	for _, f := range []struct {
		name, value string
		max         int
	}{
		{"reportingController", e.ReportingController, 0},
		{"reportingInstance", e.ReportingInstance, maxReportingInstance},
		{"action", e.Action, maxAction},
		{"reason", e.Reason, maxReason},
	} {
		switch {
		case f.value == "":
			errs = append(errs, status.Required(status.NewPath(f.name), ""))
		case f.max > 0 && len(f.value) > f.max:
			errs = append(errs, status.TooLong(status.NewPath(f.name), "", f.max))
		}
	}
	if len(e.Note) > MaxNoteBytes {
		errs = append(errs, status.TooLong(status.NewPath("note"), "", MaxNoteBytes))
	}
	return errs
}

// validateSeries checks a series: at least two occurrences, the last
// one's time set.
func validateSeries(s *EventSeries) status.FieldErrors {
	var errs status.FieldErrors
	if s == nil {
		return nil
	}
	if s.Count < 2 {
		errs = append(errs, status.InvalidValue(status.NewPath("series", "count"), s.Count, "should be at least 2"))
	}
	if s.LastObservedTime.IsZero() {
		errs = append(errs, status.Required(status.NewPath("series", "lastObservedTime"), ""))
	}
	return errs
}

// validateImmutable refuses an update of anything but the metadata and
// the series.
func validateImmutable(e, old *Event) status.FieldErrors {
	var errs status.FieldErrors
	for _, f := range []struct {
		name     string
		now, was any
	}{
		{"regarding", e.Regarding, old.Regarding},
		{"reason", e.Reason, old.Reason},
		{"note", e.Note, old.Note},
		{"deprecatedSource", e.DeprecatedSource, old.DeprecatedSource},
		{"deprecatedFirstTimestamp", e.DeprecatedFirstTimestamp, old.DeprecatedFirstTimestamp},
		{"deprecatedLastTimestamp", e.DeprecatedLastTimestamp, old.DeprecatedLastTimestamp},
		{"deprecatedCount", e.DeprecatedCount, old.DeprecatedCount},
		{"type", e.Type, old.Type},
		{"eventTime", e.EventTime, old.EventTime},
		{"action", e.Action, old.Action},
		{"related", e.Related, old.Related},
		{"reportingController", e.ReportingController, old.ReportingController},
		{"reportingInstance", e.ReportingInstance, old.ReportingInstance},
	} {
		if !reflect.DeepEqual(f.now, f.was) {
			errs = append(errs, status.InvalidValue(status.NewPath(f.name), f.now, "field is immutable"))
		}
	}
	return errs
}
