package corev1_test

import (
	"context"
	"testing"
	"time"

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
		{"unknown type", ns(corev1.Event{Type: "Bad"}), "type"},
		{"new style without reporter", ns(corev1.Event{EventTime: now, Action: "a", Reason: "r"}), "reportingController,reportingInstance"},
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

func TestEventColumns(t *testing.T) {
	k := corev1.EventKind()
	e := &corev1.Event{InvolvedObject: corev1.ObjectReference{Kind: "Widget", Name: "w1"}, Message: " scaled \n", Count: 3}
	got := map[string]any{}
	for _, c := range k.PrinterColumns {
		got[c.Name] = c.Cell(e)
	}
	if got["Object"] != "widget/w1" || got["Message"] != "scaled" || got["Count"] != "3" {
		t.Errorf("cells %v", got)
	}
	last := k.PrinterColumns[len(k.PrinterColumns)-1]
	if last.Name != "Name" || last.Format != "name" || last.Priority != 1 {
		t.Errorf("last column %+v, want the name at priority 1", last)
	}
}
