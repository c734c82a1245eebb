package golden

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8sproto "k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// The comparison with a real kube-apiserver (see the reference in the
// repository's shared tools): it runs only when both KAPI_REFERENCE_KUBECONFIG
// (the reference) and KAPI_KUBECONFIG (a kapi widgets server in RBAC
// mode) are set, and creates, then deletes, objects named proto-*.

// target is one server.
type target struct {
	name string
	url  string
	c    *http.Client
}

func newTarget(t *testing.T, name, kubeconfig string) target {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	c, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return target{name: name, url: cfg.Host, c: c}
}

func (tg target) do(t *testing.T, method, path string, body []byte) (int, []byte) {
	req, _ := http.NewRequest(method, tg.url+path, bytes.NewReader(body))
	req.Header.Set("Accept", "application/vnd.kubernetes.protobuf")
	if body != nil {
		req.Header.Set("Content-Type", "application/vnd.kubernetes.protobuf")
	}
	resp, err := tg.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// scrub clears what differs between any two servers (identities,
// times, managedFields), and two differences of behaviour, not encoding,
// that kapi has with kube-apiserver: kapi sets metadata.generation on
// every kind, kube only on kinds with a spec; kube labels a namespace
// with its name.
func scrub(o runtime.Object) {
	if apimeta.IsListType(o) {
		scrubList(o)
		return
	}
	if m, ok := o.(metav1.Object); ok {
		m.SetUID("")
		m.SetResourceVersion("")
		m.SetCreationTimestamp(metav1.Time{})
		m.SetManagedFields(nil)
		if _, isCRD := o.(*apiextv1.CustomResourceDefinition); !isCRD {
			m.SetGeneration(0)
		}
		delete(m.GetLabels(), "kubernetes.io/metadata.name")
	}
	if c, ok := o.(*apiextv1.CustomResourceDefinition); ok {
		for i := range c.Status.Conditions {
			c.Status.Conditions[i].LastTransitionTime = metav1.Time{}
		}
	}
}

// scrubList scrubs a list's items and clears its resourceVersion.
func scrubList(o runtime.Object) {
	items, err := apimeta.ExtractList(o)
	if err != nil {
		return
	}
	for _, it := range items {
		scrub(it)
	}
	_ = apimeta.SetList(o, items)
	if l, err := apimeta.ListAccessor(o); err == nil {
		l.SetResourceVersion("")
	}
}

// TestProtobufAgainstReference creates one object of every built-in kind
// kapi serves on both servers from the same protobuf body, then gets it
// and lists it in protobuf, and compares the answers' bytes once
// scrubbed.
func TestProtobufAgainstReference(t *testing.T) {
	ref, kapi := os.Getenv("KAPI_REFERENCE_KUBECONFIG"), os.Getenv("KAPI_KUBECONFIG")
	if ref == "" || kapi == "" {
		t.Skip("KAPI_REFERENCE_KUBECONFIG and KAPI_KUBECONFIG name no servers")
	}
	servers := []target{newTarget(t, "reference", ref), newTarget(t, "kapi", kapi)}
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, eventsv1.AddToScheme, coordinationv1.AddToScheme, rbacv1.AddToScheme, apiextv1.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	ser := k8sproto.NewSerializer(scheme, scheme)
	const ns = "proto-pb"
	now := metav1.NewMicroTime(time.Date(2026, 12, 7, 17, 0, 0, 123456000, time.UTC))
	ref0 := corev1.ObjectReference{Kind: "ConfigMap", Namespace: ns, Name: "cfg", APIVersion: "v1"}
	rules := []rbacv1.PolicyRule{{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"cfg"}}}
	subjects := []rbacv1.Subject{{Kind: "User", APIGroup: rbacv1.GroupName, Name: "proto-alice"}, {Kind: "ServiceAccount", Name: "robot", Namespace: ns}}
	tm := func(kind, av string) metav1.TypeMeta { return metav1.TypeMeta{Kind: kind, APIVersion: av} }
	om := func(name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": "proto"}, Annotations: map[string]string{"note": "x"}}
	}
	crd := &apiextv1.CustomResourceDefinition{TypeMeta: tm("CustomResourceDefinition", "apiextensions.k8s.io/v1"),
		ObjectMeta: metav1.ObjectMeta{Name: "proto-things.proto.example.com"},
		Spec: apiextv1.CustomResourceDefinitionSpec{Group: "proto.example.com", Scope: apiextv1.NamespaceScoped,
			Names: apiextv1.CustomResourceDefinitionNames{Plural: "proto-things", Kind: "ProtoThing", ShortNames: []string{"pt"}, Categories: []string{"proto"}},
			Versions: []apiextv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Subresources: &apiextv1.CustomResourceSubresources{Status: &apiextv1.CustomResourceSubresourceStatus{},
					Scale: &apiextv1.CustomResourceSubresourceScale{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas"}},
				AdditionalPrinterColumns: []apiextv1.CustomResourceColumnDefinition{{Name: "Replicas", Type: "integer", JSONPath: ".spec.replicas", Priority: 1}},
				Schema: &apiextv1.CustomResourceValidation{OpenAPIV3Schema: &apiextv1.JSONSchemaProps{Type: "object", Description: "a thing",
					Properties: map[string]apiextv1.JSONSchemaProps{
						"spec": {Type: "object", Default: &apiextv1.JSON{Raw: []byte(`{"replicas": 1, "color": "blue"}`)},
							XValidations: apiextv1.ValidationRules{{Rule: "self.replicas <= 10", Message: "too many", FieldPath: ".replicas"}},
							Required:     []string{"replicas"},
							Properties: map[string]apiextv1.JSONSchemaProps{
								"replicas": {Type: "integer", Format: "int32", Minimum: ptr(0.0), Maximum: ptr(1000.0)},
								"color":    {Type: "string", Pattern: "^[a-z]+$", Enum: []apiextv1.JSON{{Raw: []byte(`"blue"`)}, {Raw: []byte(`"red"`)}}, MaxLength: ptr(int64(10))},
								"size":     {XIntOrString: true, AnyOf: []apiextv1.JSONSchemaProps{{Type: "integer"}, {Type: "string"}}},
								"tags":     {Type: "array", XListType: ptr("set"), Items: &apiextv1.JSONSchemaPropsOrArray{Schema: &apiextv1.JSONSchemaProps{Type: "string"}}},
								"labels":   {Type: "object", AdditionalProperties: &apiextv1.JSONSchemaPropsOrBool{Allows: true, Schema: &apiextv1.JSONSchemaProps{Type: "string"}}},
								"extra":    {Type: "object", XPreserveUnknownFields: ptr(true), Example: &apiextv1.JSON{Raw: []byte(`{"b": 2.0, "a": 1}`)}},
							}},
						"status": {Type: "object", Properties: map[string]apiextv1.JSONSchemaProps{"replicas": {Type: "integer"}}},
					}}}}},
		}}
	objs := []struct {
		create, get string
		obj         runtime.Object
	}{
		{"/api/v1/namespaces", "/api/v1/namespaces/" + ns, &corev1.Namespace{TypeMeta: tm("Namespace", "v1"), ObjectMeta: om(ns)}},
		{"/api/v1/namespaces/" + ns + "/configmaps", "cfg", &corev1.ConfigMap{TypeMeta: tm("ConfigMap", "v1"), ObjectMeta: om("cfg"),
			Data: map[string]string{"a": "1", "b": ""}, BinaryData: map[string][]byte{"bin": {0, 255}}, Immutable: ptr(false)}},
		{"/api/v1/namespaces/" + ns + "/secrets", "sec", &corev1.Secret{TypeMeta: tm("Secret", "v1"), ObjectMeta: om("sec"),
			Data: map[string][]byte{"k": []byte("v")}, StringData: map[string]string{"user": "me"}}},
		{"/api/v1/namespaces/" + ns + "/serviceaccounts", "robot", &corev1.ServiceAccount{TypeMeta: tm("ServiceAccount", "v1"), ObjectMeta: om("robot"),
			ImagePullSecrets: []corev1.LocalObjectReference{{Name: "pull"}}, AutomountServiceAccountToken: ptr(false)}},
		{"/api/v1/namespaces/" + ns + "/events", "cfg.1", &corev1.Event{TypeMeta: tm("Event", "v1"), ObjectMeta: om("cfg.1"), InvolvedObject: ref0,
			Reason: "Tested", Message: "m", Type: "Normal", Source: corev1.EventSource{Component: "proto"}, Count: 1,
			FirstTimestamp: metav1.NewTime(now.Time.Truncate(time.Second)), LastTimestamp: metav1.NewTime(now.Time.Truncate(time.Second))}},
		{"/apis/events.k8s.io/v1/namespaces/" + ns + "/events", "cfg.2", &eventsv1.Event{TypeMeta: tm("Event", "events.k8s.io/v1"), ObjectMeta: om("cfg.2"),
			EventTime: now, Regarding: ref0, ReportingController: "example.com/proto", ReportingInstance: "proto-0", Action: "Test", Reason: "Tested", Type: "Normal", Note: "n"}},
		{"/apis/coordination.k8s.io/v1/namespaces/" + ns + "/leases", "leader", &coordinationv1.Lease{TypeMeta: tm("Lease", "coordination.k8s.io/v1"), ObjectMeta: om("leader"),
			Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr("a"), LeaseDurationSeconds: ptr(int32(15)), AcquireTime: &now, RenewTime: &now, LeaseTransitions: ptr(int32(2))}}},
		{"/apis/rbac.authorization.k8s.io/v1/namespaces/" + ns + "/roles", "reader", &rbacv1.Role{TypeMeta: tm("Role", "rbac.authorization.k8s.io/v1"), ObjectMeta: om("reader"), Rules: rules}},
		{"/apis/rbac.authorization.k8s.io/v1/namespaces/" + ns + "/rolebindings", "readers", &rbacv1.RoleBinding{TypeMeta: tm("RoleBinding", "rbac.authorization.k8s.io/v1"), ObjectMeta: om("readers"),
			Subjects: subjects, RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "reader"}}},
		{"/apis/rbac.authorization.k8s.io/v1/clusterroles", "proto-reader", &rbacv1.ClusterRole{TypeMeta: tm("ClusterRole", "rbac.authorization.k8s.io/v1"), ObjectMeta: om("proto-reader"), Rules: rules}},
		{"/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", "proto-readers", &rbacv1.ClusterRoleBinding{TypeMeta: tm("ClusterRoleBinding", "rbac.authorization.k8s.io/v1"), ObjectMeta: om("proto-readers"),
			Subjects: subjects, RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "proto-reader"}}},
		{"/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd.Name, crd},
	}
	defer func() {
		for _, s := range servers {
			for i := len(objs) - 1; i >= 0; i-- {
				o := objs[i]
				path := o.get
				if path[0] != '/' {
					path = o.create + "/" + path
				}
				s.do(t, "DELETE", path, nil)
			}
		}
	}()
	for _, o := range objs {
		var body bytes.Buffer
		if err := ser.Encode(o.obj, &body); err != nil {
			t.Fatal(err)
		}
		path := o.get
		if path[0] != '/' {
			path = o.create + "/" + path
		}
		name, _ := apimeta.NewAccessor().Name(o.obj)
		list := o.create + "?fieldSelector=metadata.name%3D" + name
		var creates, gets, lists [2][]byte
		for i, s := range servers {
			code, b := s.do(t, "POST", o.create, body.Bytes())
			if code != 201 {
				t.Errorf("%s: POST %s: %d %q", s.name, o.create, code, b)
			}
			creates[i] = b
		}
		time.Sleep(1500 * time.Millisecond) // controllers settle (namespace, CRD conditions)
		for i, s := range servers {
			code, b := s.do(t, "GET", path, nil)
			if code != 200 {
				t.Errorf("%s: GET %s: %d %q", s.name, path, code, b)
			}
			gets[i] = b
			if code, b = s.do(t, "GET", list, nil); code != 200 {
				t.Errorf("%s: GET %s: %d %q", s.name, list, code, b)
			}
			lists[i] = b
		}
		compare(t, ser, "create "+o.create, creates)
		compare(t, ser, "get "+path, gets)
		compare(t, ser, "list "+list, lists)
	}
}

// compare decodes both answers, scrubs them and compares their
// encodings.
func compare(t *testing.T, ser *k8sproto.Serializer, what string, got [2][]byte) {
	var norm [2][]byte
	var js [2]string
	for i, b := range got {
		obj, _, err := ser.Decode(b, nil, nil)
		if err != nil {
			t.Errorf("%s: %d cannot decode: %v %q", what, i, err, b)
			return
		}
		scrub(obj)
		var buf bytes.Buffer
		if err := ser.Encode(obj, &buf); err != nil {
			t.Fatal(err)
		}
		norm[i] = buf.Bytes()
		j, _ := json.Marshal(obj)
		js[i] = string(j)
	}
	if !bytes.Equal(norm[0], norm[1]) {
		t.Errorf("%s differs:\n reference %s\n kapi      %s", what, js[0], js[1])
		return
	}
	t.Logf("%s: the same %d bytes once scrubbed (%d and %d as sent)", what, len(norm[0]), len(got[0]), len(got[1]))
}
