package golden

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kcoordinationv1 "github.com/kapi-dev/kapi/kinds/coordinationv1"
	kcorev1 "github.com/kapi-dev/kapi/kinds/corev1"
	keventsv1 "github.com/kapi-dev/kapi/kinds/eventsv1"
)

// coreEvent is a core/v1 Event with every field set.
func coreEvent() *corev1.Event {
	at := time.Date(2026, 3, 4, 5, 6, 7, 123456000, time.UTC)
	ref := corev1.ObjectReference{Kind: "Widget", Namespace: "ns", Name: "w", UID: "u1", APIVersion: "stable.example.com/v1",
		ResourceVersion: "12", FieldPath: "spec.ports[0]"}
	return &corev1.Event{
		TypeMeta:       metav1.TypeMeta{Kind: "Event", APIVersion: "v1"},
		ObjectMeta:     metav1.ObjectMeta{Name: "w.1", Namespace: "ns", ResourceVersion: "13"},
		InvolvedObject: ref, Reason: "Scaled", Message: "scaled to 3",
		Source:         corev1.EventSource{Component: "widgets", Host: "node-1"},
		FirstTimestamp: metav1.NewTime(t0), LastTimestamp: metav1.NewTime(t1), Count: 4, Type: "Warning",
		EventTime: metav1.MicroTime{Time: at}, Series: &corev1.EventSeries{Count: 2, LastObservedTime: metav1.MicroTime{Time: at.Add(time.Second)}},
		Action: "Scale", Related: &ref, ReportingController: "example.com/widgets", ReportingInstance: "widgets-0",
	}
}

// eventsEvent is an events.k8s.io/v1 Event with every field set.
func eventsEvent() *eventsv1.Event {
	at := time.Date(2026, 3, 4, 5, 6, 7, 654321000, time.UTC)
	ref := corev1.ObjectReference{Kind: "Widget", Namespace: "ns", Name: "w", UID: "u1"}
	return &eventsv1.Event{
		TypeMeta:   metav1.TypeMeta{Kind: "Event", APIVersion: "events.k8s.io/v1"},
		ObjectMeta: metav1.ObjectMeta{Name: "w.2", Namespace: "ns"},
		EventTime:  metav1.MicroTime{Time: at}, Series: &eventsv1.EventSeries{Count: 3, LastObservedTime: metav1.MicroTime{Time: at}},
		ReportingController: "example.com/widgets", ReportingInstance: "widgets-0", Action: "Reconcile", Reason: "Ready",
		Regarding: ref, Related: &ref, Note: "ready", Type: "Normal",
		DeprecatedSource:         corev1.EventSource{Component: "widgets"},
		DeprecatedFirstTimestamp: metav1.NewTime(t0), DeprecatedLastTimestamp: metav1.NewTime(t1), DeprecatedCount: 2,
	}
}

func serviceAccount() *corev1.ServiceAccount {
	return &corev1.ServiceAccount{
		TypeMeta:   metav1.TypeMeta{Kind: "ServiceAccount", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Name: "builder", Namespace: "ns"},
		Secrets:    []corev1.ObjectReference{{Name: "token"}}, ImagePullSecrets: []corev1.LocalObjectReference{{Name: "pull"}},
		AutomountServiceAccountToken: ptr(false),
	}
}

// TestKindsMirrorK8sAPI holds every type of the kinds packages in step
// with its k8s.io/api namesake: the same fields, JSON names and protobuf
// field numbers (k8s.io/api's casttype options aside, which only name Go
// types).
func TestKindsMirrorK8sAPI(t *testing.T) {
	pairs := []struct{ ours, theirs any }{
		{kcorev1.ConfigMap{}, corev1.ConfigMap{}}, {kcorev1.Secret{}, corev1.Secret{}},
		{kcorev1.Namespace{}, corev1.Namespace{}}, {kcorev1.NamespaceSpec{}, corev1.NamespaceSpec{}},
		{kcorev1.NamespaceStatus{}, corev1.NamespaceStatus{}}, {kcorev1.NamespaceCondition{}, corev1.NamespaceCondition{}},
		{kcorev1.Event{}, corev1.Event{}}, {kcorev1.EventSource{}, corev1.EventSource{}}, {kcorev1.EventSeries{}, corev1.EventSeries{}},
		{kcorev1.ObjectReference{}, corev1.ObjectReference{}}, {kcorev1.LocalObjectReference{}, corev1.LocalObjectReference{}},
		{kcorev1.ServiceAccount{}, corev1.ServiceAccount{}},
		{keventsv1.Event{}, eventsv1.Event{}}, {keventsv1.EventSeries{}, eventsv1.EventSeries{}},
		{kcoordinationv1.Lease{}, coordinationv1.Lease{}}, {kcoordinationv1.LeaseSpec{}, coordinationv1.LeaseSpec{}},
	}
	for _, p := range pairs {
		ours, theirs := reflect.TypeOf(p.ours), reflect.TypeOf(p.theirs)
		if ours.NumField() != theirs.NumField() {
			t.Errorf("%v: %d fields, k8s.io/api has %d", ours, ours.NumField(), theirs.NumField())
			continue
		}
		for i := 0; i < theirs.NumField(); i++ {
			want := theirs.Field(i)
			got, ok := ours.FieldByName(want.Name)
			switch {
			case !ok:
				t.Errorf("%v.%s missing", ours, want.Name)
			case protoTag(got) != protoTag(want):
				t.Errorf("%v.%s: protobuf tag %q, want %q", ours, want.Name, protoTag(got), protoTag(want))
			case !want.Anonymous && got.Tag.Get("json") != want.Tag.Get("json"):
				t.Errorf("%v.%s: json tag %q, want %q", ours, want.Name, got.Tag.Get("json"), want.Tag.Get("json"))
			}
		}
	}
}

func protoTag(f reflect.StructField) string {
	tag := f.Tag.Get("protobuf")
	if i := strings.Index(tag, ",casttype="); i >= 0 {
		tag = tag[:i]
	}
	return tag
}

// TestKindsJSONAndCBOR compares kapi's JSON and CBOR of each kind with
// apimachinery's; their protobuf is among TestProtobufObjects' fixtures.
func TestKindsJSONAndCBOR(t *testing.T) {
	for _, f := range fixtures(t) {
		if strings.HasPrefix(f.name, "role") {
			continue
		}
		t.Run(f.name, func(t *testing.T) {
			wj, err := json.Marshal(f.k8s)
			if err != nil {
				t.Fatal(err)
			}
			gj, err := json.Marshal(f.kapi)
			if err != nil {
				t.Fatal(err)
			}
			if string(gj) != string(wj) {
				t.Errorf("JSON:\n kapi         %s\n apimachinery %s", gj, wj)
			}
			sameCBOR(t, f.name, kapiCBOR(t, f.kapi), amCBOR(t, f.k8s))
		})
	}
}
