package corev1

import (
	"context"
	"strconv"
	"strings"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// Event reports something that happened to an object.
type Event struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata" protobuf:"bytes,1,opt,name=metadata"`
	// InvolvedObject is the object the event is about.
	InvolvedObject ObjectReference `json:"involvedObject" protobuf:"bytes,2,opt,name=involvedObject"`
	// Reason is a short, machine-readable cause, in UpperCamelCase.
	Reason string `json:"reason,omitempty" protobuf:"bytes,3,opt,name=reason"`
	// Message is a human-readable description.
	Message string `json:"message,omitempty" protobuf:"bytes,4,opt,name=message"`
	// Source is the component that reported it.
	Source EventSource `json:"source,omitempty" protobuf:"bytes,5,opt,name=source"`
	// FirstTimestamp is when the event was first recorded.
	FirstTimestamp meta.Time `json:"firstTimestamp,omitempty" protobuf:"bytes,6,opt,name=firstTimestamp"`
	// LastTimestamp is when it was most recently recorded.
	LastTimestamp meta.Time `json:"lastTimestamp,omitempty" protobuf:"bytes,7,opt,name=lastTimestamp"`
	// Count is how many times it happened.
	Count int32 `json:"count,omitempty" protobuf:"varint,8,opt,name=count"`
	// Type is Normal or Warning.
	Type string `json:"type,omitempty" protobuf:"bytes,9,opt,name=type"`
	// EventTime is when it was first observed, by events.k8s.io clients.
	EventTime meta.MicroTime `json:"eventTime,omitempty" protobuf:"bytes,10,opt,name=eventTime"`
	// Series is set for an event that keeps happening.
	Series *EventSeries `json:"series,omitempty" protobuf:"bytes,11,opt,name=series"`
	// Action is what was done, or failed, about the object.
	Action string `json:"action,omitempty" protobuf:"bytes,12,opt,name=action"`
	// Related is a second object involved.
	Related *ObjectReference `json:"related,omitempty" protobuf:"bytes,13,opt,name=related"`
	// ReportingController names the controller that emitted it.
	ReportingController string `json:"reportingComponent" protobuf:"bytes,14,opt,name=reportingComponent" optional:"true"`
	// ReportingInstance names the controller's instance.
	ReportingInstance string `json:"reportingInstance" protobuf:"bytes,15,opt,name=reportingInstance" optional:"true"`
}

// EventSource names the component and host that reported an event.
type EventSource struct {
	Component string `json:"component,omitempty" protobuf:"bytes,1,opt,name=component"`
	Host      string `json:"host,omitempty" protobuf:"bytes,2,opt,name=host"`
}

// EventSeries describes an event that keeps happening.
type EventSeries struct {
	Count            int32          `json:"count,omitempty" protobuf:"varint,1,name=count"`
	LastObservedTime meta.MicroTime `json:"lastObservedTime,omitempty" protobuf:"bytes,2,name=lastObservedTime"`
}

// The event types.
const (
	EventTypeNormal  = "Normal"
	EventTypeWarning = "Warning"
)

// EventKind is the registration of the core Event: /api/v1 events, short
// name ev, namespaced, selectable by involved object, reason, source and
// type, printed as kubectl get events prints them.
func EventKind() apiserver.Kind {
	return apiserver.Kind{
		Group: "", Version: "v1", Kind: "Event", Resource: "events", Singular: "event",
		ShortNames: []string{"ev"}, Namespaced: true, NoGeneration: true,
		New: func() meta.Object { return &Event{} },
		Validate: func(_ context.Context, obj, _ meta.Object) status.FieldErrors {
			return validateEvent(obj.(*Event))
		},
		SelectableFields: eventFields(),
		PrinterColumns:   eventColumns(),
	}
}

// eventFields are the field selectors kube-apiserver offers on Events.
func eventFields() map[string]func(meta.Object) string {
	involved := func(get func(o ObjectReference) string) func(meta.Object) string {
		return func(obj meta.Object) string { return get(obj.(*Event).InvolvedObject) }
	}
	event := func(get func(e *Event) string) func(meta.Object) string {
		return func(obj meta.Object) string { return get(obj.(*Event)) }
	}
	return map[string]func(meta.Object) string{
		"involvedObject.kind":            involved(func(o ObjectReference) string { return o.Kind }),
		"involvedObject.namespace":       involved(func(o ObjectReference) string { return o.Namespace }),
		"involvedObject.name":            involved(func(o ObjectReference) string { return o.Name }),
		"involvedObject.uid":             involved(func(o ObjectReference) string { return o.UID }),
		"involvedObject.apiVersion":      involved(func(o ObjectReference) string { return o.APIVersion }),
		"involvedObject.resourceVersion": involved(func(o ObjectReference) string { return o.ResourceVersion }),
		"involvedObject.fieldPath":       involved(func(o ObjectReference) string { return o.FieldPath }),
		"reason":                         event(func(e *Event) string { return e.Reason }),
		"reportingComponent":             event(func(e *Event) string { return e.ReportingController }),
		"source":                         event(func(e *Event) string { return e.Source.Component }),
		"type":                           event(func(e *Event) string { return e.Type }),
	}
}

// validateEvent checks what kube-apiserver checks of a core Event: the
// involved object is in the event's namespace, the type is known, and an
// event in the events.k8s.io shape (with an eventTime) names its
// reporter, action and reason.
func validateEvent(e *Event) status.FieldErrors {
	var errs status.FieldErrors
	ns := e.InvolvedObject.Namespace
	if ns != "" && ns != e.Namespace {
		errs = append(errs, status.InvalidValue(status.NewPath("involvedObject", "namespace"), ns, "does not match event.namespace"))
	}
	if e.Type != "" && e.Type != EventTypeNormal && e.Type != EventTypeWarning {
		errs = append(errs, status.NotSupported(status.NewPath("type"), e.Type, []string{EventTypeNormal, EventTypeWarning}))
	}
	if !e.EventTime.IsZero() {
		if e.ReportingController == "" {
			errs = append(errs, status.Required(status.NewPath("reportingController"), ""))
		}
		if e.ReportingInstance == "" {
			errs = append(errs, status.Required(status.NewPath("reportingInstance"), ""))
		}
		if e.Action == "" {
			errs = append(errs, status.Required(status.NewPath("action"), ""))
		}
		if e.Reason == "" {
			errs = append(errs, status.Required(status.NewPath("reason"), ""))
		}
	}
	return errs
}

// eventColumns are kubectl get events' columns: Last Seen, Type, Reason,
// Object and Message, and with -o wide Subobject, Source, First Seen,
// Count and Name.
func eventColumns() []apiserver.PrinterColumn {
	ev := func(obj meta.Object) *Event { return obj.(*Event) }
	return []apiserver.PrinterColumn{
		{Name: "Last Seen", Type: "string", Description: "The time at which the most recent occurrence of this event was recorded.", Cell: func(obj meta.Object) any {
			e := ev(obj)
			switch {
			case e.Series != nil:
				return e.Series.LastObservedTime
			case e.LastTimestamp.IsZero():
				return e.EventTime
			}
			return e.LastTimestamp
		}},
		{Name: "Type", Type: "string", Description: "Type of this event (Normal, Warning), new types could be added in the future", Cell: func(obj meta.Object) any { return ev(obj).Type }},
		{Name: "Reason", Type: "string", Description: "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.", Cell: func(obj meta.Object) any { return ev(obj).Reason }},
		{Name: "Object", Type: "string", Description: "The object that this event is about.", Cell: func(obj meta.Object) any {
			o := ev(obj).InvolvedObject
			return strings.ToLower(o.Kind) + "/" + o.Name
		}},
		{Name: "Subobject", Type: "string", Priority: 1, Description: "The field of the object this event is about.", Cell: func(obj meta.Object) any { return ev(obj).InvolvedObject.FieldPath }},
		{Name: "Source", Type: "string", Priority: 1, Description: "The component reporting this event.", Cell: func(obj meta.Object) any { return eventSource(ev(obj)) }},
		{Name: "Message", Type: "string", Description: "A human-readable description of the status of this operation.", Cell: func(obj meta.Object) any { return strings.TrimSpace(ev(obj).Message) }},
		{Name: "First Seen", Type: "string", Priority: 1, Description: "The time at which the event was first recorded.", Cell: func(obj meta.Object) any {
			e := ev(obj)
			if e.FirstTimestamp.IsZero() {
				return e.EventTime
			}
			return e.FirstTimestamp
		}},
		{Name: "Count", Type: "string", Priority: 1, Description: "The number of times this event has occurred.", Cell: func(obj meta.Object) any {
			e := ev(obj)
			if e.Series != nil {
				return strconv.Itoa(int(e.Series.Count))
			}
			return strconv.Itoa(int(e.Count))
		}},
		{Name: "Name", Type: "string", Format: "name", Priority: 1, Description: "Name of the event.", Cell: func(obj meta.Object) any { return obj.GetObjectMeta().Name }},
	}
}

// eventSource is the Source column: the reporting component and host.
func eventSource(e *Event) string {
	c, h := e.Source.Component, e.Source.Host
	if c == "" {
		c, h = e.ReportingController, e.ReportingInstance
	}
	if h == "" {
		return c
	}
	return c + ", " + h
}
