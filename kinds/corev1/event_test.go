package corev1_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/kinds/corev1"
	"github.com/kapi-dev/kapi/meta"
)

func TestValidateEvent(t *testing.T) {
	k := corev1.EventKind()
	now := meta.NewMicroTime(time.Now())
	ns := func(e corev1.Event) *corev1.Event { e.Namespace = "default"; return &e }
	cases := []struct {
		name string
		obj  *corev1.Event
		want string
	}{
		{"legacy", ns(corev1.Event{InvolvedObject: corev1.ObjectReference{Namespace: "default", Name: "w"}, Type: "Normal", Reason: "Done"}), ""},
		{"other namespace", ns(corev1.Event{InvolvedObject: corev1.ObjectReference{Namespace: "other"}}), "involvedObject.namespace"},
		// The core API takes any type.
		{"unknown type", ns(corev1.Event{Type: "Bad"}), ""},
		{"cluster object in default", ns(corev1.Event{InvolvedObject: corev1.ObjectReference{Kind: "Node", Name: "n"}}), ""},
		{"cluster object outside default", func() *corev1.Event {
			e := &corev1.Event{InvolvedObject: corev1.ObjectReference{Kind: "Node", Name: "n"}}
			e.Namespace = "team"
			return e
		}(), "involvedObject.namespace"},
		{"new style without reporter", ns(corev1.Event{EventTime: now, Action: "a", Reason: "r",
			InvolvedObject: corev1.ObjectReference{Namespace: "default"}}), "reportingComponent,reportingComponent,reportingComponent,reportingInstance"},
		{"new style, cluster object in kube-system", func() *corev1.Event {
			e := &corev1.Event{EventTime: now, Action: "a", Reason: "r", ReportingController: "c", ReportingInstance: "i"}
			e.Namespace = "kube-system"
			return e
		}(), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := fields(k.Validate(context.Background(), c.obj, nil)); got != c.want {
				t.Errorf("errors on %q, want %q", got, c.want)
			}
		})
	}
}

func TestEventFieldSelectors(t *testing.T) {
	k := corev1.EventKind()
	e := &corev1.Event{InvolvedObject: corev1.ObjectReference{Kind: "Widget", Name: "w1", Namespace: "ns", UID: "u"},
		Reason: "Scaled", Type: "Normal", Source: corev1.EventSource{Component: "ctl"}, ReportingController: "rc"}
	want := map[string]string{
		"involvedObject.kind": "Widget", "involvedObject.name": "w1", "involvedObject.namespace": "ns",
		"involvedObject.uid": "u", "reason": "Scaled", "type": "Normal", "source": "ctl", "reportingComponent": "rc",
	}
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
	if n := len(k.SelectableFields); n != 11 {
		t.Errorf("%d selectable fields, want kube-apiserver's 11", n)
	}
}

// TestEventColumns: the cells of kube's Table of Events, with its
// fallbacks: the first seen time is eventTime when firstTimestamp is
// unset, the last seen time the series' or else the first seen time, the
// count the series' or 1, the object its kind alone without a name, the
// source the reporting controller and instance when source is unset.
func TestEventColumns(t *testing.T) {
	first := meta.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	last := meta.NewTime(first.Add(time.Minute))
	eventTime := meta.NewMicroTime(first.Add(time.Second))
	observed := meta.NewMicroTime(first.Add(time.Hour))
	named := func(e corev1.Event) *corev1.Event { e.Name = "ev1"; return &e }
	cases := []struct {
		name string
		obj  *corev1.Event
		want []any // Last Seen, Type, Reason, Object, Subobject, Source, Message, First Seen, Count, Name
	}{
		{"core", named(corev1.Event{InvolvedObject: corev1.ObjectReference{Kind: "Widget", Name: "w1", FieldPath: "spec.x"},
			Type: "Normal", Reason: "Scaled", Message: " scaled \n", Count: 3, FirstTimestamp: first, LastTimestamp: last,
			Source: corev1.EventSource{Component: "ctl", Host: "node1"}}),
			[]any{last, "Normal", "Scaled", "widget/w1", "spec.x", "ctl, node1", "scaled", first, int64(3), "ev1"}},
		{"no last timestamp", named(corev1.Event{InvolvedObject: corev1.ObjectReference{Kind: "Widget", Name: "w1"},
			FirstTimestamp: first, Source: corev1.EventSource{Component: "ctl"}}),
			[]any{first, "", "", "widget/w1", "", "ctl", "", first, int64(1), "ev1"}},
		{"events.k8s.io", named(corev1.Event{InvolvedObject: corev1.ObjectReference{Kind: "Gadget"},
			EventTime: eventTime, ReportingController: "rc", ReportingInstance: "ri", Type: "Warning"}),
			[]any{eventTime, "Warning", "", "gadget", "", "rc, ri", "", eventTime, int64(1), "ev1"}},
		{"series", named(corev1.Event{InvolvedObject: corev1.ObjectReference{Kind: "Widget", Name: "w1"},
			EventTime: eventTime, Series: &corev1.EventSeries{Count: 7, LastObservedTime: observed},
			ReportingController: "rc", Source: corev1.EventSource{Host: "node1"}}),
			[]any{observed, "", "", "widget/w1", "", "rc, node1", "", eventTime, int64(7), "ev1"}},
		{"nothing", named(corev1.Event{}),
			[]any{meta.MicroTime{}, "", "", "", "", "", "", meta.MicroTime{}, int64(1), "ev1"}},
	}
	cols := corev1.EventKind().PrinterColumns
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []any
			for _, col := range cols {
				got = append(got, col.Cell(c.obj))
			}
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("cells (-want +got):\n%s", d)
			}
		})
	}
	var names []string
	for _, col := range cols {
		names = append(names, fmt.Sprintf("%s/%s/%d", col.Name, col.Format, col.Priority))
	}
	want := []string{"Last Seen//0", "Type//0", "Reason//0", "Object//0", "Subobject//1", "Source//1", "Message//0",
		"First Seen//1", "Count//1", "Name/name/1"}
	if d := cmp.Diff(want, names); d != "" {
		t.Errorf("columns (-want +got):\n%s", d)
	}
}

// TestEventSourceField: the source field selector falls back on the
// reporting controller, as kube-apiserver's does.
func TestEventSourceField(t *testing.T) {
	source := corev1.EventKind().SelectableFields["source"]
	for _, c := range []struct {
		e    corev1.Event
		want string
	}{
		{corev1.Event{Source: corev1.EventSource{Component: "ctl"}, ReportingController: "rc"}, "ctl"},
		{corev1.Event{ReportingController: "rc"}, "rc"},
		{corev1.Event{}, ""},
	} {
		if got := source(&c.e); got != c.want {
			t.Errorf("source of %+v = %q, want %q", c.e, got, c.want)
		}
	}
}
