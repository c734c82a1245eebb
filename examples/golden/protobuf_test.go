// Package golden compares kapi's wire bytes with the bytes
// k8s.io/apimachinery produces for the same objects.
package golden

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8sproto "k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	k8stypes "k8s.io/apimachinery/pkg/types"
	restwatch "k8s.io/client-go/rest/watch"

	"github.com/kapi-dev/kapi/codec/protobuf"
	kcoordinationv1 "github.com/kapi-dev/kapi/kinds/coordinationv1"
	kcorev1 "github.com/kapi-dev/kapi/kinds/corev1"
	keventsv1 "github.com/kapi-dev/kapi/kinds/eventsv1"
	"github.com/kapi-dev/kapi/meta"
)

// The kapi side of types from k8s.io/api: the same fields, JSON names and
// protobuf tags, with kapi's meta types.
type (
	role struct {
		meta.TypeMeta   `json:",inline"`
		meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
		Rules           []policyRule `json:"rules" protobuf:"bytes,2,rep,name=rules"`
	}
	policyRule struct {
		Verbs           []string `json:"verbs" protobuf:"bytes,1,rep,name=verbs"`
		APIGroups       []string `json:"apiGroups,omitempty" protobuf:"bytes,2,rep,name=apiGroups"`
		Resources       []string `json:"resources,omitempty" protobuf:"bytes,3,rep,name=resources"`
		ResourceNames   []string `json:"resourceNames,omitempty" protobuf:"bytes,4,rep,name=resourceNames"`
		NonResourceURLs []string `json:"nonResourceURLs,omitempty" protobuf:"bytes,5,rep,name=nonResourceURLs"`
	}
	roleBinding struct {
		meta.TypeMeta   `json:",inline"`
		meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
		Subjects        []subject `json:"subjects,omitempty" protobuf:"bytes,2,rep,name=subjects"`
		RoleRef         roleRef   `json:"roleRef" protobuf:"bytes,3,opt,name=roleRef"`
	}
	subject struct {
		Kind      string `json:"kind" protobuf:"bytes,1,opt,name=kind"`
		APIGroup  string `json:"apiGroup,omitempty" protobuf:"bytes,2,opt,name=apiGroup"`
		Name      string `json:"name" protobuf:"bytes,3,opt,name=name"`
		Namespace string `json:"namespace,omitempty" protobuf:"bytes,4,opt,name=namespace"`
	}
	roleRef struct {
		APIGroup string `json:"apiGroup" protobuf:"bytes,1,opt,name=apiGroup"`
		Kind     string `json:"kind" protobuf:"bytes,2,opt,name=kind"`
		Name     string `json:"name" protobuf:"bytes,3,opt,name=name"`
	}
)

var (
	t0 = time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	t1 = time.Date(2031, 1, 2, 3, 4, 5, 0, time.UTC)
)

func ptr[T any](v T) *T { return &v }

// fullMeta sets every ObjectMeta field.
func fullMeta() metav1.ObjectMeta {
	del := metav1.NewTime(t1)
	mt := metav1.NewTime(t0)
	return metav1.ObjectMeta{
		Name: "cfg", GenerateName: "cfg-", Namespace: "ns", SelfLink: "/api/v1/x", UID: "8c1e0c9a-uid",
		ResourceVersion: "42", Generation: 3, CreationTimestamp: metav1.NewTime(t0), DeletionTimestamp: &del,
		DeletionGracePeriodSeconds: ptr(int64(30)),
		Labels:                     map[string]string{"b": "2", "a": "1", "app.kubernetes.io/name": "x"},
		Annotations:                map[string]string{"z": "", "k": "v"},
		OwnerReferences: []metav1.OwnerReference{
			{APIVersion: "apps/v1", Kind: "Deployment", Name: "d", UID: "u2", Controller: ptr(true), BlockOwnerDeletion: ptr(false)},
			{APIVersion: "v1", Kind: "Pod", Name: "p", UID: "u3"},
		},
		Finalizers: []string{"example.com/f", "kubernetes"},
		ManagedFields: []metav1.ManagedFieldsEntry{
			{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "v1", Time: &mt,
				FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:data":{"f:a":{}}}`)}},
			{Manager: "ctl", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Subresource: "status"},
		},
	}
}

// fixture is one object on both sides: the k8s.io/api value and the kapi
// value (read from the k8s value's JSON, whose compatibility other tests
// establish).
type fixture struct {
	name string
	k8s  runtime.Object
	kapi any
}

func fixtures(t *testing.T) []fixture {
	cmTM := metav1.TypeMeta{Kind: "ConfigMap", APIVersion: "v1"}
	objs := []struct {
		name string
		k8s  runtime.Object
		kapi any
	}{
		{"configmap full", &corev1.ConfigMap{TypeMeta: cmTM, ObjectMeta: fullMeta(), Immutable: ptr(false),
			Data:       map[string]string{"z": "last", "a": "first", "empty": ""},
			BinaryData: map[string][]byte{"bin": {0, 1, 2, 255}, "none": {}}}, &kcorev1.ConfigMap{}},
		{"configmap minimal", &corev1.ConfigMap{TypeMeta: cmTM, ObjectMeta: metav1.ObjectMeta{Name: "m"}}, &kcorev1.ConfigMap{}},
		{"configmap no typemeta", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "m", Namespace: "x"}, Data: map[string]string{"k": "v"}}, &kcorev1.ConfigMap{}},
		{"secret", &corev1.Secret{TypeMeta: metav1.TypeMeta{Kind: "Secret", APIVersion: "v1"}, ObjectMeta: metav1.ObjectMeta{Name: "s"},
			Immutable: ptr(true), Data: map[string][]byte{"tls.key": bytes.Repeat([]byte{7}, 300)},
			StringData: map[string]string{"user": "admin"}, Type: corev1.SecretTypeOpaque}, &kcorev1.Secret{}},
		{"role", &rbacv1.Role{TypeMeta: metav1.TypeMeta{Kind: "Role", APIVersion: "rbac.authorization.k8s.io/v1"},
			ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: "ns", Labels: map[string]string{"x": "y"}},
			Rules: []rbacv1.PolicyRule{
				{Verbs: []string{"get", "list", ""}, APIGroups: []string{""}, Resources: []string{"configmaps"}},
				{Verbs: []string{"*"}, NonResourceURLs: []string{"/healthz"}, ResourceNames: []string{"a", "b"}},
			}}, &role{}},
		{"rolebinding", &rbacv1.RoleBinding{TypeMeta: metav1.TypeMeta{Kind: "RoleBinding", APIVersion: "rbac.authorization.k8s.io/v1"},
			ObjectMeta: metav1.ObjectMeta{Name: "rb", Namespace: "ns"},
			Subjects:   []rbacv1.Subject{{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: "jane"}, {Kind: "ServiceAccount", Name: "default", Namespace: "ns"}},
			RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "r"}}, &roleBinding{}},
		{"namespace", &corev1.Namespace{TypeMeta: metav1.TypeMeta{Kind: "Namespace", APIVersion: "v1"},
			ObjectMeta: metav1.ObjectMeta{Name: "ns", CreationTimestamp: metav1.NewTime(t1)},
			Spec:       corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{"kubernetes"}},
			Status: corev1.NamespaceStatus{Phase: corev1.NamespaceTerminating, Conditions: []corev1.NamespaceCondition{
				{Type: "NamespaceDeletionDiscoveryFailure", Status: "True", LastTransitionTime: metav1.NewTime(t0), Reason: "R", Message: "m"},
				{Type: "NamespaceContentRemaining", Status: "False"},
			}}}, &kcorev1.Namespace{}},
		{"lease", lease(), &kcoordinationv1.Lease{}},
		{"event core full", coreEvent(), &kcorev1.Event{}},
		{"event core minimal", &corev1.Event{TypeMeta: metav1.TypeMeta{Kind: "Event", APIVersion: "v1"},
			ObjectMeta: metav1.ObjectMeta{Name: "e", Namespace: "ns"}}, &kcorev1.Event{}},
		{"event events.k8s.io", eventsEvent(), &keventsv1.Event{}},
		{"serviceaccount", serviceAccount(), &kcorev1.ServiceAccount{}},
	}
	out := make([]fixture, len(objs))
	for i, o := range objs {
		out[i] = fixture{name: o.name, k8s: o.k8s, kapi: fromJSON(t, o.k8s, o.kapi)}
	}
	return out
}

// configMapList is the kapi side of ConfigMapList for decoding, since
// meta.List holds its items as interfaces.
type configMapList struct {
	meta.TypeMeta `json:",inline"`
	meta.ListMeta `json:"metadata" protobuf:"bytes,1,opt,name=metadata"`
	Items         []kcorev1.ConfigMap `json:"items" protobuf:"bytes,2,rep,name=items"`
}

func fromJSON(t *testing.T, from, into any) any {
	t.Helper()
	b, err := json.Marshal(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, into); err != nil {
		t.Fatal(err)
	}
	return into
}

// k8s is apimachinery's protobuf serializer (objects, enveloped) and its
// raw serializer (watch events, bare), over a scheme of the fixtures'
// types.
type k8s struct {
	ser *k8sproto.Serializer
	raw *k8sproto.RawSerializer
}

func newK8s(t *testing.T) k8s {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := rbacv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := coordinationv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := eventsv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	metav1.AddToGroupVersion(scheme, schema.GroupVersion{Group: "meta.k8s.io", Version: "v1"})
	return k8s{ser: k8sproto.NewSerializer(scheme, scheme), raw: k8sproto.NewRawSerializer(scheme, scheme)}
}

func (k k8s) encode(t *testing.T, obj runtime.Object) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := k.ser.Encode(obj, &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// decode reads data into a new value of obj's type.
func (k k8s) decode(t *testing.T, data []byte, like runtime.Object) runtime.Object {
	t.Helper()
	into := reflect.New(reflect.TypeOf(like).Elem()).Interface().(runtime.Object)
	out, _, err := k.ser.Decode(data, nil, into)
	if err != nil {
		t.Fatalf("apimachinery cannot decode kapi's bytes: %v", err)
	}
	return out
}

func kapiEncode(t *testing.T, ser *protobuf.Serializer, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := ser.Encode(&buf, v); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// kapiDecode reads data into a new value of like's type.
func kapiDecode(t *testing.T, ser *protobuf.Serializer, data []byte, like any) any {
	t.Helper()
	into := reflect.New(reflect.TypeOf(like).Elem()).Interface()
	if _, err := ser.Decode(data, into); err != nil {
		t.Fatalf("kapi cannot decode apimachinery's bytes: %v", err)
	}
	return into
}

func sameBytes(t *testing.T, what string, got, want []byte) {
	t.Helper()
	if !bytes.Equal(got, want) {
		at := 0
		for at < len(got) && at < len(want) && got[at] == want[at] {
			at++
		}
		t.Errorf("%s: kapi's bytes differ from apimachinery's at offset %d (len %d vs %d)\nkapi: % x\nk8s:  % x",
			what, at, len(got), len(want), got, want)
	}
}

// semanticEqual compares apimachinery objects, times by instant.
func semanticEqual(t *testing.T, what string, got, want any) {
	t.Helper()
	if !equality.Semantic.DeepEqual(got, want) {
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(want)
		t.Errorf("%s: round trip changed the object\ngot:  %s\nwant: %s", what, gj, wj)
	}
}

func kapiEqual(t *testing.T, what string, got, want any) {
	t.Helper()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s: round trip changed the object (-want +got):\n%s", what, diff)
	}
}

func TestProtobufObjects(t *testing.T) {
	k, ser := newK8s(t), protobuf.New()
	for _, f := range fixtures(t) {
		t.Run(f.name, func(t *testing.T) {
			want := k.encode(t, f.k8s)
			got := kapiEncode(t, ser, f.kapi)
			sameBytes(t, "object", got, want)
			back := k.decode(t, got, f.k8s)
			if f.k8s.GetObjectKind().GroupVersionKind().Empty() {
				back.GetObjectKind().SetGroupVersionKind(f.k8s.GetObjectKind().GroupVersionKind())
			}
			semanticEqual(t, "kapi → apimachinery", back, f.k8s)
			kapiEqual(t, "apimachinery → kapi", kapiDecode(t, ser, want, f.kapi), f.kapi)
		})
	}
}

func configMaps(t *testing.T) (*corev1.ConfigMap, *kcorev1.ConfigMap, *corev1.ConfigMap, *kcorev1.ConfigMap) {
	var full, minimal fixture
	for _, f := range fixtures(t) {
		switch f.name {
		case "configmap full":
			full = f
		case "configmap minimal":
			minimal = f
		}
	}
	return full.k8s.(*corev1.ConfigMap), full.kapi.(*kcorev1.ConfigMap), minimal.k8s.(*corev1.ConfigMap), minimal.kapi.(*kcorev1.ConfigMap)
}

func TestProtobufLists(t *testing.T) {
	k, ser := newK8s(t), protobuf.New()
	full, kfull, minimal, kminimal := configMaps(t)
	// Items travel without their kind: the list's envelope names it.
	full.TypeMeta, kfull.TypeMeta, minimal.TypeMeta, kminimal.TypeMeta = metav1.TypeMeta{}, meta.TypeMeta{}, metav1.TypeMeta{}, meta.TypeMeta{}
	tm := metav1.TypeMeta{Kind: "ConfigMapList", APIVersion: "v1"}
	cases := []struct {
		name string
		k8s  *corev1.ConfigMapList
		kapi *meta.List
	}{
		{"items and continue",
			&corev1.ConfigMapList{TypeMeta: tm, ListMeta: metav1.ListMeta{ResourceVersion: "99", Continue: "tok", RemainingItemCount: ptr(int64(7))},
				Items: []corev1.ConfigMap{*full, *minimal}},
			&meta.List{TypeMeta: meta.TypeMeta{Kind: "ConfigMapList", APIVersion: "v1"},
				ListMeta: meta.ListMeta{ResourceVersion: "99", Continue: "tok", RemainingItemCount: ptr(int64(7))},
				Items:    []meta.Object{kfull, kminimal}}},
		{"empty",
			&corev1.ConfigMapList{TypeMeta: tm, ListMeta: metav1.ListMeta{ResourceVersion: "5"}, Items: []corev1.ConfigMap{}},
			&meta.List{TypeMeta: meta.TypeMeta{Kind: "ConfigMapList", APIVersion: "v1"}, ListMeta: meta.ListMeta{ResourceVersion: "5"},
				Items: []meta.Object{}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := k.encode(t, c.k8s)
			got := kapiEncode(t, ser, c.kapi)
			sameBytes(t, "list", got, want)
			back := k.decode(t, got, c.k8s).(*corev1.ConfigMapList)
			if len(back.Items) == 0 {
				back.Items = c.k8s.Items // nil and empty are one on the wire
			}
			semanticEqual(t, "kapi → apimachinery", back, c.k8s)
			typed := kapiDecode(t, ser, want, &configMapList{}).(*configMapList)
			if typed.TypeMeta != c.kapi.TypeMeta || len(typed.Items) != len(c.kapi.Items) {
				t.Fatalf("apimachinery → kapi: got %+v", typed)
			}
			if diff := cmp.Diff(c.kapi.ListMeta, typed.ListMeta); diff != "" {
				t.Fatalf("apimachinery → kapi: list metadata (-want +got):\n%s", diff)
			}
			for i := range typed.Items {
				kapiEqual(t, "item", &typed.Items[i], c.kapi.Items[i])
			}
		})
	}
}

func TestProtobufStatusAndOptions(t *testing.T) {
	k, ser := newK8s(t), protobuf.New()
	stm := metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}
	cases := []struct {
		name string
		k8s  runtime.Object
		kapi any
	}{
		{"status failure", &metav1.Status{TypeMeta: stm, Status: metav1.StatusFailure, Message: `ConfigMap "x" is invalid`,
			Reason: metav1.StatusReasonInvalid, Code: 422, ListMeta: metav1.ListMeta{ResourceVersion: "3"},
			Details: &metav1.StatusDetails{Name: "x", Group: "", Kind: "ConfigMap", UID: "u", RetryAfterSeconds: 2,
				Causes: []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueInvalid, Message: "bad", Field: "data[a b]"}, {Message: "other"}}}},
			&meta.Status{}},
		{"status success", &metav1.Status{TypeMeta: stm, Status: metav1.StatusSuccess}, &meta.Status{}},
		{"status negative code", &metav1.Status{TypeMeta: stm, Code: -1}, &meta.Status{}},
		{"delete options", &metav1.DeleteOptions{TypeMeta: metav1.TypeMeta{Kind: "DeleteOptions", APIVersion: "meta.k8s.io/v1"},
			GracePeriodSeconds: ptr(int64(0)), Preconditions: &metav1.Preconditions{UID: ptr(k8stypes.UID("u")), ResourceVersion: ptr("7")},
			OrphanDependents: ptr(false), PropagationPolicy: ptr(metav1.DeletePropagationForeground), DryRun: []string{"All"}},
			&meta.DeleteOptions{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			kapi := fromJSON(t, c.k8s, c.kapi)
			want := k.encode(t, c.k8s)
			got := kapiEncode(t, ser, kapi)
			sameBytes(t, c.name, got, want)
			semanticEqual(t, "kapi → apimachinery", k.decode(t, got, c.k8s), c.k8s)
			kapiEqual(t, "apimachinery → kapi", kapiDecode(t, ser, want, kapi), kapi)
		})
	}
}

func TestProtobufWatchEvents(t *testing.T) {
	k, ser := newK8s(t), protobuf.New()
	full, kfull, minimal, kminimal := configMaps(t)
	bookmark := &corev1.ConfigMap{TypeMeta: full.TypeMeta, ObjectMeta: metav1.ObjectMeta{ResourceVersion: "77",
		Annotations: map[string]string{meta.InitialEventsAnnotation: "true"}}}
	gone := &metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure,
		Message: "too old resource version: 1 (5)", Reason: metav1.StatusReasonExpired, Code: 410}
	events := []struct {
		typ  string
		k8s  runtime.Object
		kapi any
	}{
		{"ADDED", full, kfull},
		{"MODIFIED", minimal, kminimal},
		{"DELETED", full, kfull},
		{"BOOKMARK", bookmark, fromJSON(t, bookmark, &kcorev1.ConfigMap{})},
		{"ERROR", gone, fromJSON(t, gone, &meta.Status{})},
	}
	var want bytes.Buffer
	enc := streaming.NewEncoder(k8sproto.LengthDelimitedFramer.NewFrameWriter(&want), k.raw)
	var got []byte
	for _, ev := range events {
		err := enc.Encode(&metav1.WatchEvent{Type: ev.typ, Object: runtime.RawExtension{Raw: k.encode(t, ev.k8s)}})
		if err != nil {
			t.Fatal(err)
		}
		got = ser.AppendEvent(got, ev.typ, kapiEncode(t, ser, ev.kapi))
	}
	sameBytes(t, "watch stream", got, want.Bytes())

	// client-go's watch decoder reads kapi's stream.
	frames := k8sproto.LengthDelimitedFramer.NewFrameReader(io.NopCloser(bytes.NewReader(got)))
	dec := restwatch.NewDecoder(streaming.NewDecoder(frames, k.raw), k.ser)
	for _, ev := range events {
		typ, obj, err := dec.Decode()
		if err != nil {
			t.Fatalf("client-go cannot decode kapi's %s event: %v", ev.typ, err)
		}
		if string(typ) != ev.typ {
			t.Errorf("event type %q, want %q", typ, ev.typ)
		}
		semanticEqual(t, ev.typ, obj, ev.k8s)
	}

	// kapi reads apimachinery's frames: the length, then the bare event.
	stream := want.Bytes()
	for _, ev := range events {
		typ, raw, rest := splitFrame(t, stream)
		stream = rest
		if typ != ev.typ {
			t.Errorf("event type %q, want %q", typ, ev.typ)
		}
		kapiEqual(t, ev.typ, kapiDecode(t, ser, raw, ev.kapi), ev.kapi)
	}
}

// splitFrame reads one length-prefixed WatchEvent{type=1,
// object=RawExtension{raw=1}} with kapi's own serializer, through a
// struct of the same shape.
func splitFrame(t *testing.T, stream []byte) (string, []byte, []byte) {
	t.Helper()
	if len(stream) < 4 {
		t.Fatal("short stream")
	}
	n := int(stream[0])<<24 | int(stream[1])<<16 | int(stream[2])<<8 | int(stream[3])
	frame, rest := stream[4:4+n], stream[4+n:]
	// Give the bare event an envelope so that Decode can read it.
	var env bytes.Buffer
	env.Write([]byte("k8s\x00"))
	env.Write([]byte{0x0a, 0x00, 0x12})
	env.Write(appendVarint(nil, uint64(len(frame))))
	env.Write(frame)
	var ev meta.WatchEvent
	if _, err := protobuf.New().Decode(env.Bytes(), &ev); err != nil {
		t.Fatalf("decoding a watch frame: %v", err)
	}
	return ev.Type, ev.Object, rest
}

func appendVarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}
