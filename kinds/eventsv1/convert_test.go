package eventsv1_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kapi-dev/kapi/kinds/corev1"
	"github.com/kapi-dev/kapi/kinds/eventsv1"
	"github.com/kapi-dev/kapi/meta"
)

// fullEvent has every field set, each to a distinct value.
func fullEvent() *eventsv1.Event {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	e := &eventsv1.Event{
		EventTime:                meta.NewMicroTime(t0.Add(123456 * time.Microsecond)),
		Series:                   &eventsv1.EventSeries{Count: 4, LastObservedTime: meta.NewMicroTime(t0.Add(time.Minute))},
		ReportingController:      "example.com/widgets",
		ReportingInstance:        "widgets-1",
		Action:                   "Scale",
		Reason:                   "Scaled",
		Regarding:                corev1.ObjectReference{Kind: "Widget", Namespace: "default", Name: "w", UID: "u-1", APIVersion: "stable.example.com/v1"},
		Related:                  &corev1.ObjectReference{Kind: "Gadget", Name: "g"},
		Note:                     "scaled to 3",
		Type:                     "Normal",
		DeprecatedSource:         corev1.EventSource{Component: "widgets", Host: "node-1"},
		DeprecatedFirstTimestamp: meta.NewTime(t0),
		DeprecatedLastTimestamp:  meta.NewTime(t0.Add(time.Hour)),
		DeprecatedCount:          7,
	}
	e.TypeMeta = meta.TypeMeta{APIVersion: "events.k8s.io/v1", Kind: "Event"}
	e.Namespace, e.Name, e.Labels = "default", "w.1", map[string]string{"a": "b"}
	return e
}

// TestConvert checks kube's mapping between the two Events, field by
// field, and that converting there and back loses nothing.
func TestConvert(t *testing.T) {
	e := fullEvent()
	c := eventsv1.ToCore(e)
	checks := []struct {
		name      string
		core, evt any
	}{
		{"involvedObject/regarding", c.InvolvedObject, e.Regarding},
		{"message/note", c.Message, e.Note},
		{"source/deprecatedSource", c.Source, e.DeprecatedSource},
		{"firstTimestamp/deprecatedFirstTimestamp", c.FirstTimestamp, e.DeprecatedFirstTimestamp},
		{"lastTimestamp/deprecatedLastTimestamp", c.LastTimestamp, e.DeprecatedLastTimestamp},
		{"count/deprecatedCount", c.Count, e.DeprecatedCount},
		{"reason", c.Reason, e.Reason},
		{"reportingComponent/reportingController", c.ReportingController, e.ReportingController},
		{"reportingInstance", c.ReportingInstance, e.ReportingInstance},
		{"action", c.Action, e.Action},
		{"type", c.Type, e.Type},
		{"eventTime", c.EventTime, e.EventTime},
		{"related", c.Related, e.Related},
		{"series", *c.Series, corev1.EventSeries{Count: e.Series.Count, LastObservedTime: e.Series.LastObservedTime}},
		{"metadata", c.ObjectMeta, e.ObjectMeta},
		{"typeMeta", c.TypeMeta, meta.TypeMeta{APIVersion: "v1", Kind: "Event"}},
	}
	for _, ch := range checks {
		if diff := cmp.Diff(ch.evt, ch.core); diff != "" {
			t.Errorf("%s (-events.k8s.io +core):\n%s", ch.name, diff)
		}
	}
	if diff := cmp.Diff(e, eventsv1.FromCore(c)); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	if back := eventsv1.FromCore(eventsv1.ToCore(&eventsv1.Event{})); back.Series != nil || back.Related != nil {
		t.Errorf("an empty event came back with %+v", back)
	}
}
