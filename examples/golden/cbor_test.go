// Package golden compares kapi's wire bytes with the bytes
// k8s.io/apimachinery's own serializers produce for the same objects.
package golden

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	amcbor "k8s.io/apimachinery/pkg/runtime/serializer/cbor"

	kcbor "github.com/kapi-dev/kapi/codec/cbor"
	"github.com/kapi-dev/kapi/examples/widgets/api"
	"github.com/kapi-dev/kapi/meta"
)

// The Widget as a kind built on apimachinery's types: what a Go client or
// kube-apiserver would hold for the same object.
type amWidget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              amWidgetSpec   `json:"spec,omitzero"`
	Status            amWidgetStatus `json:"status,omitzero"`
}

type amWidgetSpec struct {
	Replicas *int32           `json:"replicas,omitempty"`
	Color    string           `json:"color,omitempty"`
	Size     string           `json:"size,omitempty"`
	Tags     []string         `json:"tags,omitempty"`
	Ports    []api.WidgetPort `json:"ports,omitempty"`
}

type amWidgetStatus struct {
	ReadyReplicas      int32         `json:"readyReplicas,omitempty"`
	ObservedGeneration int64         `json:"observedGeneration,omitempty"`
	Selector           string        `json:"selector,omitempty"`
	Conditions         []amCondition `json:"conditions,omitempty"`
}

type amCondition struct {
	Type               string      `json:"type"`
	Status             string      `json:"status"`
	Reason             string      `json:"reason,omitempty"`
	Message            string      `json:"message,omitempty"`
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty"`
}

func (w *amWidget) DeepCopyObject() runtime.Object { c := *w; return &c }

type amWidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []amWidget `json:"items"`
}

func (l *amWidgetList) DeepCopyObject() runtime.Object { c := *l; return &c }

var (
	created = time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	deleted = time.Date(2025, 3, 5, 0, 0, 1, 0, time.UTC)
)

// fullWidget sets every metadata field kube-apiserver serves and a spec
// and status with every Widget field.
func fullWidget(name string) *api.Widget {
	replicas := int32(3)
	grace := int64(30)
	yes := true
	created := meta.NewTime(created)
	deleted := meta.NewTime(deleted)
	return &api.Widget{
		TypeMeta: meta.TypeMeta{APIVersion: "stable.example.com/v1", Kind: "Widget"},
		ObjectMeta: meta.ObjectMeta{
			Name: name, Namespace: "default", UID: "6a1f0c3e-1111-2222-3333-444455556666",
			ResourceVersion: "42", Generation: 7, CreationTimestamp: created,
			DeletionTimestamp: &deleted, DeletionGracePeriodSeconds: &grace,
			Labels:      map[string]string{"app": "demo", "tier": "a<b>&c"},
			Annotations: map[string]string{"note": "héllo \"wörld\"", "k8s.io/long-key-name-with-more-than-twenty-four": ""},
			OwnerReferences: []meta.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "owner",
				UID: "0000", Controller: &yes, BlockOwnerDeletion: &yes}},
			Finalizers: []string{"example.com/cleanup"},
			ManagedFields: []meta.ManagedFieldsEntry{{Manager: "kubectl", Operation: meta.ManagedFieldsOperationApply,
				APIVersion: "stable.example.com/v1", Time: &created, FieldsType: "FieldsV1",
				FieldsV1: &meta.FieldsV1{Raw: []byte(`{"f:spec":{"f:color":{},"f:ports":{"k:{\"name\":\"http\"}":{".":{},"f:port":{}}}}}`)}}},
		},
		Spec: api.WidgetSpec{Replicas: &replicas, Color: "blue", Size: "large", Tags: []string{"x", "y"},
			Ports: []api.WidgetPort{{Name: "http", Port: 80, Protocol: "TCP"}, {Name: "big", Port: 65535}}},
		Status: api.WidgetStatus{ReadyReplicas: 2, ObservedGeneration: 1 << 40, Selector: "app=demo",
			Conditions: []api.Condition{{Type: "Ready", Status: "True", Reason: "Up", Message: "all good",
				LastTransitionTime: created}}},
	}
}

// bareWidget has only a name and a creation time, and so no spec and
// no status. (A zero creationTimestamp is left out: apimachinery omits it
// with omitzero, meta.ObjectMeta writes null, in JSON and CBOR alike.)
func bareWidget() *api.Widget {
	return &api.Widget{TypeMeta: meta.TypeMeta{APIVersion: "stable.example.com/v1", Kind: "Widget"},
		ObjectMeta: meta.ObjectMeta{Name: "bare", Namespace: "default", CreationTimestamp: meta.NewTime(created)}}
}

func kapiCBOR(t *testing.T, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := (kcbor.Serializer{}).Encode(&buf, v); err != nil {
		t.Fatalf("kapi encode %T: %v", v, err)
	}
	return buf.Bytes()
}

func amSerializer() amcbor.Serializer {
	s := runtime.NewScheme()
	return amcbor.NewSerializer(s, s)
}

func amCBOR(t *testing.T, obj runtime.Object) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := amSerializer().Encode(obj, &buf); err != nil {
		t.Fatalf("apimachinery encode %T: %v", obj, err)
	}
	return buf.Bytes()
}

// viaJSON decodes the JSON of a kapi value into an apimachinery value.
func viaJSON[T any](t *testing.T, v any) *T {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	out := new(T)
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatal(err)
	}
	return out
}

func unstructuredViaJSON(t *testing.T, v any) *unstructured.Unstructured {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(b); err != nil {
		t.Fatal(err)
	}
	return u
}

func sameCBOR(t *testing.T, what string, got, want []byte) {
	t.Helper()
	if !bytes.Equal(got, want) {
		t.Errorf("%s:\n kapi         %s\n apimachinery %s", what, hex.EncodeToString(got), hex.EncodeToString(want))
	}
	if !bytes.HasPrefix(got, []byte{0xd9, 0xd9, 0xf7}) {
		t.Errorf("%s: no self-described CBOR tag: % x", what, got[:min(3, len(got))])
	}
}

func TestCBORObjectsMatchApimachinery(t *testing.T) {
	for _, w := range []*api.Widget{fullWidget("full"), bareWidget()} {
		got := kapiCBOR(t, w)
		sameCBOR(t, w.Name+" as a typed object", got, amCBOR(t, viaJSON[amWidget](t, w)))
		sameCBOR(t, w.Name+" as unstructured", got, amCBOR(t, unstructuredViaJSON(t, w)))
	}
}

func TestCBORListsMatchApimachinery(t *testing.T) {
	left := int64(5)
	for name, l := range map[string]*meta.List{
		"two items": {TypeMeta: meta.TypeMeta{Kind: "WidgetList", APIVersion: "stable.example.com/v1"},
			ListMeta: meta.ListMeta{ResourceVersion: "99", Continue: "token", RemainingItemCount: &left},
			Items:    []meta.Object{fullWidget("a"), bareWidget()}},
		"empty": {TypeMeta: meta.TypeMeta{Kind: "WidgetList", APIVersion: "stable.example.com/v1"},
			ListMeta: meta.ListMeta{ResourceVersion: "1"}, Items: []meta.Object{}},
	} {
		got := kapiCBOR(t, l)
		sameCBOR(t, name+" typed", got, amCBOR(t, viaJSON[amWidgetList](t, l)))
		b, _ := json.Marshal(l)
		ul := &unstructured.UnstructuredList{}
		if err := ul.UnmarshalJSON(b); err != nil {
			t.Fatal(err)
		}
		sameCBOR(t, name+" unstructured", got, amCBOR(t, ul))
	}
}

// A kind served as meta.Unstructured: numbers keep their decoded types,
// integral floats included, as apimachinery's Unstructured keeps them.
func TestCBORUnstructuredMatchesApimachinery(t *testing.T) {
	content := func() map[string]any {
		return map[string]any{
			"spec": map[string]any{"size": int64(3), "ratio": 2.5, "whole": float64(2), "tiny": 1e-7,
				"big": int64(1) << 62, "neg": int64(-24), "ok": true, "none": nil,
				"tags": []any{"a", int64(1), 1.5, map[string]any{"k": "v"}}, "text": "ünïcode"},
		}
	}
	u := &meta.Unstructured{TypeMeta: meta.TypeMeta{APIVersion: "dyn.example.com/v1", Kind: "Thing"},
		ObjectMeta: meta.ObjectMeta{Name: "t1", Namespace: "ns", CreationTimestamp: meta.NewTime(created),
			Labels: map[string]string{"a": "b"}},
		Content: content()}
	obj := content()
	obj["apiVersion"], obj["kind"] = "dyn.example.com/v1", "Thing"
	var md map[string]any
	if err := json.Unmarshal(mustJSON(t, &u.ObjectMeta), &md); err != nil {
		t.Fatal(err)
	}
	obj["metadata"] = md
	want := amCBOR(t, &unstructured.Unstructured{Object: obj})
	sameCBOR(t, "unstructured object", kapiCBOR(t, u), want)

	l := &meta.List{TypeMeta: meta.TypeMeta{Kind: "ThingList", APIVersion: "dyn.example.com/v1"},
		ListMeta: meta.ListMeta{ResourceVersion: "7"}, Items: []meta.Object{u}}
	wantList := amCBOR(t, &unstructured.UnstructuredList{
		Object: map[string]any{"apiVersion": "dyn.example.com/v1", "kind": "ThingList",
			"metadata": map[string]any{"resourceVersion": "7"}},
		Items: []unstructured.Unstructured{{Object: obj}}})
	sameCBOR(t, "unstructured list", kapiCBOR(t, l), wantList)
}

func statuses() (*meta.Status, *metav1.Status) {
	k := &meta.Status{TypeMeta: meta.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: meta.StatusFailure,
		Message: `widgets.stable.example.com "w" is invalid: spec.replicas: Invalid value: 2000`,
		Reason:  meta.StatusReasonInvalid, Code: 422,
		Details: &meta.StatusDetails{Name: "w", Group: "stable.example.com", Kind: "widgets", UID: "u-1",
			RetryAfterSeconds: 3, Causes: []meta.StatusCause{{Type: meta.CauseTypeFieldValueInvalid,
				Message: "Invalid value: 2000", Field: "spec.replicas"}}}}
	a := &metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure,
		Message: k.Message, Reason: metav1.StatusReasonInvalid, Code: 422,
		Details: &metav1.StatusDetails{Name: "w", Group: "stable.example.com", Kind: "widgets", UID: "u-1",
			RetryAfterSeconds: 3, Causes: []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueInvalid,
				Message: "Invalid value: 2000", Field: "spec.replicas"}}}}
	return k, a
}

func TestCBORStatusMatchesApimachinery(t *testing.T) {
	k, a := statuses()
	sameCBOR(t, "failure", kapiCBOR(t, k), amCBOR(t, a))
	ok := &meta.Status{TypeMeta: meta.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: meta.StatusSuccess,
		Details: &meta.StatusDetails{Name: "w", Group: "stable.example.com", Kind: "widgets"}}
	sameCBOR(t, "success", kapiCBOR(t, ok), amCBOR(t, &metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status: metav1.StatusSuccess, Details: &metav1.StatusDetails{Name: "w", Group: "stable.example.com", Kind: "widgets"}}))
}

// Watch events: kube-apiserver encodes a metav1.WatchEvent whose object is
// the embedded object's own CBOR, self-described tag included.
func TestCBORWatchEventsMatchApimachinery(t *testing.T) {
	s := runtime.NewScheme()
	stream := amcbor.NewSerializer(s, s, amcbor.Transcode(false))
	k, a := statuses()
	for _, tc := range []struct {
		typ  string
		kobj any
		aobj runtime.Object
	}{
		{"ADDED", fullWidget("w"), viaJSON[amWidget](t, fullWidget("w"))},
		{"MODIFIED", bareWidget(), viaJSON[amWidget](t, bareWidget())},
		{"DELETED", fullWidget("gone"), viaJSON[amWidget](t, fullWidget("gone"))},
		{"ERROR", k, a},
	} {
		got := (kcbor.Serializer{}).AppendEvent(nil, tc.typ, kapiCBOR(t, tc.kobj))
		var want bytes.Buffer
		ev := &metav1.WatchEvent{Type: tc.typ, Object: runtime.RawExtension{Raw: amCBOR(t, tc.aobj)}}
		if err := stream.Encode(ev, amcbor.NewFramer().NewFrameWriter(&want)); err != nil {
			t.Fatal(err)
		}
		sameCBOR(t, tc.typ+" event", got, want.Bytes())
	}
}

// Round trips: kapi's bytes read by apimachinery, apimachinery's read by
// kapi.
func TestCBORRoundTrips(t *testing.T) {
	w := fullWidget("rt")
	u := &unstructured.Unstructured{}
	if _, _, err := amSerializer().Decode(kapiCBOR(t, w), nil, u); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(unstructuredViaJSON(t, w).Object, u.Object); diff != "" {
		t.Errorf("apimachinery read kapi's bytes (-want +got):\n%s", diff)
	}

	back := &api.Widget{}
	strict, err := (kcbor.Serializer{}).Decode(amCBOR(t, viaJSON[amWidget](t, w)), back)
	if err != nil || len(strict) > 0 {
		t.Fatalf("kapi decode: %v %v", strict, err)
	}
	if diff := cmp.Diff(w, back); diff != "" {
		t.Errorf("kapi read apimachinery's bytes (-want +got):\n%s", diff)
	}

	k, a := statuses()
	st := &meta.Status{}
	if _, err := (kcbor.Serializer{}).Decode(amCBOR(t, a), st); err != nil {
		t.Errorf("status: %v", err)
	} else if diff := cmp.Diff(k, st); diff != "" {
		t.Errorf("status (-want +got):\n%s", diff)
	}
	as := &metav1.Status{}
	if err := json.Unmarshal(mustJSON(t, decodeAny(t, kapiCBOR(t, k))), as); err != nil {
		t.Errorf("apimachinery status: %v", err)
	} else if diff := cmp.Diff(a, as); diff != "" {
		t.Errorf("apimachinery status (-want +got):\n%s", diff)
	}
}

// decodeAny reads CBOR the way a dynamic client does: into Unstructured.
func decodeAny(t *testing.T, b []byte) map[string]any {
	t.Helper()
	u := &unstructured.Unstructured{}
	if _, _, err := amSerializer().Decode(b, nil, u); err != nil {
		t.Fatal(err)
	}
	return u.Object
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
