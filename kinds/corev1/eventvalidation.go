package corev1

import (
	"reflect"
	"strconv"
	"time"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// The bounds kube-apiserver puts on an Event's strings.
const (
	maxReportingInstance = 128
	maxAction            = 128
	maxReason            = 128
	// MaxNoteBytes bounds an Event's message (an events.k8s.io note).
	MaxNoteBytes = 1024
)

// ValidateEvent checks an Event as kube-apiserver does; old is nil on a
// create. strict is set for writes through events.k8s.io/v1, which kube
// checks further: on create that the event has the new shape (an
// eventTime, a known type, a valid series, none of the core-only
// fields), on update that only its series and metadata change. Field
// paths name the core Event's fields whichever API the write came
// through, as kube's do, but for the reporting controller, which the
// core API calls reportingComponent.
func ValidateEvent(e, old *Event, strict bool) status.FieldErrors {
	errs := validateEveryEvent(e, strict)
	switch {
	case !strict:
		return errs
	case old == nil:
		return append(errs, validateNewEvent(e)...)
	}
	if !reflect.DeepEqual(e.Series, old.Series) {
		errs = append(errs, validateSeries(e.Series)...)
	}
	return append(errs, validateImmutableEvent(e, old)...)
}

// validateEveryEvent is what kube checks of every Event: one without an
// eventTime regards an object in its namespace (or is in "default"); one
// with an eventTime regards an object in its namespace unless it is in
// "default" or "kube-system", and names its reporter, action and reason
// within their bounds.
func validateEveryEvent(e *Event, strict bool) status.FieldErrors {
	var errs status.FieldErrors
	ns, nsPath := e.InvolvedObject.Namespace, status.NewPath("involvedObject", "namespace")
	if e.EventTime.IsZero() {
		if ns == "" && e.Namespace != "" && e.Namespace != NamespaceDefault || ns != "" && ns != e.Namespace {
			errs = append(errs, status.InvalidValue(nsPath, ns, "does not match event.namespace"))
		}
		return errs
	}
	if ns == "" && e.Namespace != NamespaceDefault && e.Namespace != NamespaceSystem {
		errs = append(errs, status.InvalidValue(nsPath, ns, "does not match event.namespace"))
	}
	reporter := status.NewPath("reportingComponent")
	if strict {
		reporter = status.NewPath("reportingController")
	}
	if e.ReportingController == "" {
		errs = append(errs, status.Required(reporter, ""))
	}
	for _, msg := range meta.QualifiedNameErrors(e.ReportingController) {
		errs = append(errs, status.InvalidValue(reporter, e.ReportingController, msg))
	}
	errs = append(errs, requiredBounded("reportingInstance", e.ReportingInstance, maxReportingInstance)...)
	errs = append(errs, requiredBounded("action", e.Action, maxAction)...)
	errs = append(errs, requiredBounded("reason", e.Reason, maxReason)...)
	if len(e.Message) > MaxNoteBytes {
		errs = append(errs, atMost("message", MaxNoteBytes))
	}
	return errs
}

// requiredBounded checks a string that must be set and at most max bytes
// long.
func requiredBounded(field, v string, max int) status.FieldErrors {
	switch {
	case v == "":
		return status.FieldErrors{status.Required(status.NewPath(field), "")}
	case len(v) > max:
		return status.FieldErrors{atMost(field, max)}
	}
	return nil
}

// atMost is kube's error for a string over its bound, which shows an
// empty value rather than the long one.
func atMost(field string, max int) *status.FieldError {
	return status.InvalidValue(status.NewPath(field), "", "can have at most "+strconv.Itoa(max)+" characters")
}

// validateNewEvent checks an Event created through events.k8s.io: an
// eventTime, a type of Normal or Warning, a valid series and none of the
// fields only the core API writes.
func validateNewEvent(e *Event) status.FieldErrors {
	errs := validateSeries(e.Series)
	if e.EventTime.IsZero() {
		errs = append(errs, status.Required(status.NewPath("eventTime"), ""))
	}
	if e.Type != EventTypeNormal && e.Type != EventTypeWarning {
		errs = append(errs, status.InvalidValue(status.NewPath("type"), "", "has invalid value: "+e.Type))
	}
	for _, f := range []struct {
		name  string
		unset bool
	}{
		{"firstTimestamp", e.FirstTimestamp.IsZero()},
		{"lastTimestamp", e.LastTimestamp.IsZero()},
		{"count", e.Count == 0},
		{"source", e.Source == EventSource{}},
	} {
		if !f.unset {
			errs = append(errs, status.InvalidValue(status.NewPath(f.name), "", "needs to be unset"))
		}
	}
	return errs
}

// validateSeries checks a series: at least two occurrences, the last
// one's time set.
func validateSeries(s *EventSeries) status.FieldErrors {
	if s == nil {
		return nil
	}
	var errs status.FieldErrors
	if s.Count < 2 {
		errs = append(errs, status.InvalidValue(status.NewPath("series.count"), "", "should be at least 2"))
	}
	if s.LastObservedTime.IsZero() {
		errs = append(errs, status.Required(status.NewPath("series.lastObservedTime"), ""))
	}
	return errs
}

// validateImmutableEvent refuses, through events.k8s.io, a change of
// anything but the metadata and the series. The eventTime may change
// below the microsecond, which its wire form cannot carry. Struct values
// show as kube shows them, with Go field names and every field.
func validateImmutableEvent(e, old *Event) status.FieldErrors {
	var errs status.FieldErrors
	for _, f := range []struct {
		name     string
		now, was any
	}{
		{"involvedObject", refValue(&e.InvolvedObject), refValue(&old.InvolvedObject)},
		{"reason", e.Reason, old.Reason},
		{"message", e.Message, old.Message},
		{"source", sourceValue(e.Source), sourceValue(old.Source)},
		{"firstTimestamp", e.FirstTimestamp, old.FirstTimestamp},
		{"lastTimestamp", e.LastTimestamp, old.LastTimestamp},
		{"count", e.Count, old.Count},
		{"type", e.Type, old.Type},
		{"eventTime", e.EventTime, old.EventTime},
		{"action", e.Action, old.Action},
		{"related", refValue(e.Related), refValue(old.Related)},
		{"reportingController", e.ReportingController, old.ReportingController},
		{"reportingInstance", e.ReportingInstance, old.ReportingInstance},
	} {
		if f.name == "eventTime" && sameMicrosecond(e.EventTime, old.EventTime) {
			continue
		}
		if !reflect.DeepEqual(f.now, f.was) {
			errs = append(errs, status.InvalidValue(status.NewPath(f.name), f.now, "field is immutable"))
		}
	}
	return errs
}

func sameMicrosecond(a, b meta.MicroTime) bool {
	return a.Truncate(time.Microsecond).Equal(b.Truncate(time.Microsecond))
}

// shownReference and shownSource are ObjectReference and EventSource as
// kube's errors print them: Go field names, every field.
type shownReference struct {
	Kind, Namespace, Name, UID, APIVersion, ResourceVersion, FieldPath string
}

type shownSource struct{ Component, Host string }

// refValue is r as an error prints it; nil for nil.
func refValue(r *ObjectReference) *shownReference {
	if r == nil {
		return nil
	}
	return &shownReference{r.Kind, r.Namespace, r.Name, r.UID, r.APIVersion, r.ResourceVersion, r.FieldPath}
}

func sourceValue(s EventSource) shownSource { return shownSource{s.Component, s.Host} }
