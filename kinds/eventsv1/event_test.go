package eventsv1_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/kinds/corev1"
	"github.com/kapi-dev/kapi/kinds/eventsv1"
	"github.com/kapi-dev/kapi/meta"
)

func TestValidate(t *testing.T) {
	k := eventsv1.EventKind()
	good := func() *eventsv1.Event {
		e := &eventsv1.Event{EventTime: meta.NewMicroTime(time.Now()), ReportingController: "c", ReportingInstance: "c-1",
			Action: "Reconcile", Reason: "Done", Type: "Normal", Regarding: corev1.ObjectReference{Namespace: "default"}}
		e.Namespace = "default"
		return e
	}
	cases := []struct {
		name   string
		change func(e *eventsv1.Event)
		want   string
	}{
		{"valid", func(*eventsv1.Event) {}, ""},
		{"no time", func(e *eventsv1.Event) { e.EventTime = meta.MicroTime{} }, "eventTime"},
		{"no reporter", func(e *eventsv1.Event) { e.ReportingController, e.Action = "", "" }, "reportingController,reportingController,reportingController,action"},
		{"bad type", func(e *eventsv1.Event) { e.Type = "" }, "type"},
		{"long note", func(e *eventsv1.Event) { e.Note = strings.Repeat("n", 1025) }, "message"},
		// kube checks the namespace of a new-style event only when the
		// regarded object has none.
		{"other namespace", func(e *eventsv1.Event) { e.Regarding.Namespace = "x" }, ""},
		{"series of one", func(e *eventsv1.Event) {
			e.Series = &eventsv1.EventSeries{Count: 1, LastObservedTime: e.EventTime}
		}, "series.count"},
		{"series without time", func(e *eventsv1.Event) { e.Series = &eventsv1.EventSeries{Count: 2} }, "series.lastObservedTime"},
		{"deprecated fields", func(e *eventsv1.Event) {
			e.DeprecatedCount, e.DeprecatedSource.Component = 3, "kubelet"
		}, "count,source"},
		{"long reason", func(e *eventsv1.Event) { e.Reason = strings.Repeat("r", 129) }, "reason"},
		{"cluster object outside default", func(e *eventsv1.Event) {
			e.Namespace, e.Regarding.Namespace = "team", ""
		}, "involvedObject.namespace"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := good()
			c.change(e)
			var got []string
			for _, fe := range k.Validate(context.Background(), e, nil) {
				got = append(got, fe.Field)
			}
			if strings.Join(got, ",") != c.want {
				t.Errorf("errors on %v, want %q", got, c.want)
			}
		})
	}
}

// TestValidateUpdate checks kube-apiserver's update rules: an Event
// created through the core API (no eventTime, no reporter) may have its
// metadata and series changed here, and nothing else.
func TestValidateUpdate(t *testing.T) {
	k := eventsv1.EventKind()
	legacy := func() *eventsv1.Event {
		e := &eventsv1.Event{Reason: "Pulled", Note: "pulled", Type: "Normal", DeprecatedCount: 1,
			Regarding: corev1.ObjectReference{Kind: "Widget", Namespace: "default", Name: "w"}}
		e.Namespace, e.Name = "default", "w.1"
		return e
	}
	now := meta.NewMicroTime(time.Now())
	cases := []struct {
		name   string
		change func(e *eventsv1.Event)
		want   string
	}{
		{"labels", func(e *eventsv1.Event) { e.Labels = map[string]string{"a": "b"} }, ""},
		{"series", func(e *eventsv1.Event) { e.Series = &eventsv1.EventSeries{Count: 2, LastObservedTime: now} }, ""},
		{"bad series", func(e *eventsv1.Event) { e.Series = &eventsv1.EventSeries{Count: 1, LastObservedTime: now} }, "series.count"},
		{"note", func(e *eventsv1.Event) { e.Note = "changed" }, "message"},
		{"count and type", func(e *eventsv1.Event) { e.DeprecatedCount, e.Type = 2, "Warning" }, "count,type"},
		{"regarding", func(e *eventsv1.Event) { e.Regarding.Name = "v" }, "involvedObject"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := legacy()
			c.change(e)
			var got []string
			for _, fe := range k.Validate(context.Background(), e, legacy()) {
				got = append(got, fe.Field)
			}
			if strings.Join(got, ",") != c.want {
				t.Errorf("errors on %v, want %q", got, c.want)
			}
		})
	}
}

func TestFields(t *testing.T) {
	k := eventsv1.EventKind()
	e := &eventsv1.Event{Regarding: corev1.ObjectReference{Name: "w"}, Reason: "r"}
	want := map[string]string{"regarding.name": "w", "reason": "r", "regarding.kind": ""}
	for f, v := range want {
		get, ok := k.SelectableFields[f]
		if !ok {
			t.Errorf("%s is not selectable", f)
			continue
		}
		if got := get(e); got != v {
			t.Errorf("%s = %q, want %q", f, got, v)
		}
	}
	if n := len(k.SelectableFields); n != 10 {
		t.Errorf("%d selectable fields, want kube-apiserver's 10", n)
	}
}
