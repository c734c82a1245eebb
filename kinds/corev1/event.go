package corev1

import (
	"context"
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
		ShortNames: []string{"ev"}, Namespaced: true,
		New: func() meta.Object { return &Event{} },
		// kube checks no metadata of a core Event, its name neither.
		ValidateName: apiserver.PathSegmentNameErrors,
		Validate: func(_ context.Context, obj, old meta.Object) status.FieldErrors {
			var was *Event
			if old != nil {
				was = old.(*Event)
			}
			return ValidateEvent(obj.(*Event), was, false)
		},
		NoGeneration:     true,
		SelectableFields: eventFields(),
		PrinterColumns:   EventColumns(func(obj meta.Object) *Event { return obj.(*Event) }),
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
		"source":                         event(eventSourceField),
		"type":                           event(func(e *Event) string { return e.Type }),
	}
}

// eventSourceField is the value of the source field selector: the
// reporting component, taken from the events.k8s.io reporter when the
// core field is empty, as kube-apiserver selects it.
func eventSourceField(e *Event) string {
	if e.Source.Component == "" {
		return e.ReportingController
	}
	return e.Source.Component
}

// EventColumns are the columns of kube's Table of Events, core and
// events.k8s.io alike: Last Seen, Type, Reason, Object and Message, and
// for -o wide Subobject, Source, First Seen, Count and Name (which comes
// last, so the Table does not start with it). of reads an object of the
// kind as a core Event.
func EventColumns(of func(meta.Object) *Event) []apiserver.PrinterColumn {
	cell := func(get func(e *Event) any) func(meta.Object) any {
		return func(obj meta.Object) any { return get(of(obj)) }
	}
	return []apiserver.PrinterColumn{
		{Name: "Last Seen", Type: "string", Description: "The time at which the most recent occurrence of this event was recorded.", Cell: cell(lastSeen)},
		{Name: "Type", Type: "string", Description: "Type of this event (Normal, Warning), new types could be added in the future", Cell: cell(func(e *Event) any { return e.Type })},
		{Name: "Reason", Type: "string", Description: "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.", Cell: cell(func(e *Event) any { return e.Reason })},
		{Name: "Object", Type: "string", Description: "The object that this event is about.", Cell: cell(eventTarget)},
		{Name: "Subobject", Type: "string", Priority: 1, Description: fieldPathDoc, Cell: cell(func(e *Event) any { return e.InvolvedObject.FieldPath })},
		{Name: "Source", Type: "string", Priority: 1, Description: "The component reporting this event. Should be a short machine understandable string.", Cell: cell(eventSource)},
		{Name: "Message", Type: "string", Description: "A human-readable description of the status of this operation.", Cell: cell(func(e *Event) any { return strings.TrimSpace(e.Message) })},
		{Name: "First Seen", Type: "string", Priority: 1, Description: "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)", Cell: cell(firstSeen)},
		// A string column of numbers, as kube prints it.
		{Name: "Count", Type: "string", Priority: 1, Description: "The number of times this event has occurred.", Cell: cell(eventCount)},
		{Name: "Name", Type: "string", Format: "name", Priority: 1, Description: nameDoc, Cell: cell(func(e *Event) any { return e.Name })},
	}
}

// The descriptions of the Event columns that are too long to inline.
const (
	fieldPathDoc = `If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2]. For example, if the object reference is to a container within a pod, this would take on a value like: "spec.containers{name}" (where "name" refers to the name of the container that triggered the event) or if no container name is specified "spec.containers[2]" (container with index 2 in this pod). This syntax is chosen only to have some well-defined way of referencing a part of an object.`
	nameDoc      = "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"
)

// firstSeen is the First Seen cell: firstTimestamp, else eventTime (an
// event written through events.k8s.io), as an age; a zero time prints as
// <unknown>.
func firstSeen(e *Event) any {
	if e.FirstTimestamp.IsZero() {
		return e.EventTime
	}
	return e.FirstTimestamp
}

// lastSeen is the Last Seen cell: the series' last observation, else
// lastTimestamp, else what First Seen shows.
func lastSeen(e *Event) any {
	switch {
	case e.Series != nil:
		return e.Series.LastObservedTime
	case e.LastTimestamp.IsZero():
		return firstSeen(e)
	}
	return e.LastTimestamp
}

// eventCount is the Count cell: the series' count, else count, where 0
// (an event written once through events.k8s.io) counts as one.
func eventCount(e *Event) any {
	switch {
	case e.Series != nil:
		return int64(e.Series.Count)
	case e.Count == 0:
		return int64(1)
	}
	return int64(e.Count)
}

// eventTarget is the Object cell: kind/name of the involved object, the
// kind alone without a name, lower-cased.
func eventTarget(e *Event) any {
	o := e.InvolvedObject
	if o.Name == "" {
		return strings.ToLower(o.Kind)
	}
	return strings.ToLower(o.Kind) + "/" + o.Name
}

// eventSource is the Source column: the reporting component and host,
// each taken from the events.k8s.io reporter when the core field is
// empty.
func eventSource(e *Event) any {
	c, h := e.Source.Component, e.Source.Host
	if c == "" {
		c = e.ReportingController
	}
	if h == "" {
		h = e.ReportingInstance
	}
	if h == "" {
		return c
	}
	return c + ", " + h
}
