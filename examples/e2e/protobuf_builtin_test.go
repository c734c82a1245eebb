package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	"k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8sproto "k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/auth"
	"github.com/kapi-dev/kapi/auth/rbac"
	kcoordinationv1 "github.com/kapi-dev/kapi/kinds/coordinationv1"
	kcorev1 "github.com/kapi-dev/kapi/kinds/corev1"
	keventsv1 "github.com/kapi-dev/kapi/kinds/eventsv1"
)

// TestProtobufCRDClientset: apiextensions' clientset, set to protobuf as
// Kubernetes' e2e framework sets it, creates, gets, lists, watches,
// updates and deletes a definition.
func TestProtobufCRDClientset(t *testing.T) {
	ts := startServer(t)
	var ct contentTypes
	cfg := restConfig(ts.URL)
	cfg.ContentType = protobufType
	cfg.WrapTransport = ct.wrap
	cs, err := apiextclient.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	crds := cs.ApiextensionsV1().CustomResourceDefinitions()

	w, err := crds.Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=sprongs.proto.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	created, err := crds.Create(ctx, sprongCRD(), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	schema := created.Spec.Versions[0].Schema.OpenAPIV3Schema
	if created.UID == "" || created.Spec.Names.ListKind != "SprongList" || created.Spec.Conversion.Strategy != apiextv1.NoneConverter ||
		schema.Properties["spec"].Properties["dims"].Default == nil || string(schema.Properties["spec"].Properties["dims"].Default.Raw) != `{"h":2,"w":1}` ||
		len(schema.Properties["spec"].XValidations) != 1 || !schema.Properties["spec"].Properties["size"].XIntOrString {
		t.Fatalf("created: %+v", created)
	}
	if _, err := crds.Create(ctx, sprongCRD(), metav1.CreateOptions{}); !errors.IsAlreadyExists(err) {
		t.Fatalf("second create: %v, want AlreadyExists", err)
	}
	established := waitEstablished(t, w)
	got, err := crds.Get(ctx, created.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.UID != created.UID || got.Status.AcceptedNames.Kind != "Sprong" || got.ResourceVersion != established.ResourceVersion {
		t.Fatalf("got: %+v", got)
	}
	list, err := crds.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !hasCRD(list.Items, created.Name) {
		t.Fatalf("list lacks %s", created.Name)
	}
	got.Spec.Versions[0].AdditionalPrinterColumns = []apiextv1.CustomResourceColumnDefinition{{Name: "Size", Type: "string", JSONPath: ".spec.size"}}
	updated, err := crds.Update(ctx, got, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	if len(updated.Spec.Versions[0].AdditionalPrinterColumns) != 1 || updated.Generation != got.Generation+1 {
		t.Fatalf("updated: %+v", updated)
	}
	if err := crds.Delete(ctx, created.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	assertProtobufExchanges(t, ct.all())
}

func sprongCRD() *apiextv1.CustomResourceDefinition {
	return &apiextv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "sprongs.proto.example.com"},
		Spec: apiextv1.CustomResourceDefinitionSpec{
			Group: "proto.example.com", Scope: apiextv1.NamespaceScoped,
			Names: apiextv1.CustomResourceDefinitionNames{Plural: "sprongs", Kind: "Sprong"},
			Versions: []apiextv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Subresources: &apiextv1.CustomResourceSubresources{Status: &apiextv1.CustomResourceSubresourceStatus{}},
				Schema: &apiextv1.CustomResourceValidation{OpenAPIV3Schema: &apiextv1.JSONSchemaProps{Type: "object",
					Properties: map[string]apiextv1.JSONSchemaProps{
						"spec": {Type: "object",
							XValidations: apiextv1.ValidationRules{{Rule: "self.color != 'red'", Message: "no red"}},
							Properties: map[string]apiextv1.JSONSchemaProps{
								"color": {Type: "string", Enum: []apiextv1.JSON{{Raw: []byte(`"blue"`)}, {Raw: []byte(`"red"`)}}},
								"size": {XIntOrString: true, Default: &apiextv1.JSON{Raw: []byte(`"M"`)},
									AnyOf: []apiextv1.JSONSchemaProps{{Type: "integer"}, {Type: "string"}}},
								"dims": {Type: "object", Default: &apiextv1.JSON{Raw: []byte(`{"w": 1, "h": 2}`)},
									Properties: map[string]apiextv1.JSONSchemaProps{"w": {Type: "integer"}, "h": {Type: "integer"}}},
								"tags": {Type: "array", XListType: ptrTo("set"), Items: &apiextv1.JSONSchemaPropsOrArray{Schema: &apiextv1.JSONSchemaProps{Type: "string"}}},
							}},
						"status": {Type: "object", XPreserveUnknownFields: ptrTo(true)},
					}}}}},
		},
	}
}

func ptrTo[T any](v T) *T { return &v }

func waitEstablished(t *testing.T, w watch.Interface) *apiextv1.CustomResourceDefinition {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatal("watch closed before the definition was established")
			}
			crd, isCRD := ev.Object.(*apiextv1.CustomResourceDefinition)
			if !isCRD {
				t.Fatalf("event %s %#v", ev.Type, ev.Object)
			}
			for _, c := range crd.Status.Conditions {
				if c.Type == apiextv1.Established && c.Status == apiextv1.ConditionTrue {
					return crd
				}
			}
		case <-deadline:
			t.Fatal("the definition was not established")
		}
	}
}

func hasCRD(items []apiextv1.CustomResourceDefinition, name string) bool {
	for _, c := range items {
		if c.Name == name {
			return true
		}
	}
	return false
}

// startBuiltinServer serves every built-in kind kapi has, to a user with
// extra attributes and no authorizer.
func startBuiltinServer(t *testing.T) *httptest.Server {
	t.Helper()
	user := &auth.User{Name: "proto-user", UID: "u-1", Groups: []string{"dev", "system:authenticated"},
		Extra: map[string][]string{"scopes": {"a", "b"}, "empty": {}}}
	s := apiserver.New(apiserver.Options{Authenticator: auth.AuthenticatorFunc(func(*http.Request) (*auth.User, bool, error) {
		return user, true, nil
	})})
	kinds := append(kcorev1.Kinds(), keventsv1.EventKind(), kcoordinationv1.LeaseKind(),
		rbac.ClusterRoleKind(), rbac.RoleKind(), rbac.ClusterRoleBindingKind(), rbac.RoleBindingKind())
	for _, k := range kinds {
		s.Register(k)
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(func() { ts.Close(); s.Close() })
	return ts
}

// builtin is one kind's round of create, get, list and watch through
// the typed clientset.
type builtin struct {
	name   string
	create func(context.Context) (metav1.Object, error)
	get    func(context.Context, string) (metav1.Object, error)
	list   func(context.Context) (int, error)
	watch  func(context.Context, string) (watch.Interface, error)
}

// TestProtobufBuiltinKinds: the typed clientset, set to protobuf, creates,
// gets, lists and watches every built-in kind.
func TestProtobufBuiltinKinds(t *testing.T) {
	ts := startBuiltinServer(t)
	var ct contentTypes
	cfg := restConfig(ts.URL)
	cfg.ContentType = protobufType
	cfg.WrapTransport = ct.wrap
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const ns = "proto-ns"
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, b := range builtins(cs, ns) {
		t.Run(b.name, func(t *testing.T) {
			created, err := b.create(ctx)
			if err != nil {
				t.Fatalf("create: %v", err)
			}
			if created.GetUID() == "" || created.GetResourceVersion() == "" || created.GetCreationTimestamp().Time.IsZero() {
				t.Fatalf("created: %+v", created)
			}
			got, err := b.get(ctx, created.GetName())
			if err != nil || got.GetUID() != created.GetUID() {
				t.Fatalf("get: %v %+v", err, got)
			}
			n, err := b.list(ctx)
			if err != nil || n == 0 {
				t.Fatalf("list: %d items, %v", n, err)
			}
			w, err := b.watch(ctx, "0")
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			select {
			case ev := <-w.ResultChan():
				o, ok := ev.Object.(metav1.Object)
				if ev.Type != watch.Added || !ok || o.GetUID() == "" {
					t.Fatalf("event %s %#v", ev.Type, ev.Object)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("no event")
			}
		})
	}
	assertProtobufExchanges(t, ct.all())
}

func builtins(cs *kubernetes.Clientset, ns string) []builtin {
	core, rb := cs.CoreV1(), cs.RbacV1()
	meta := func(name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": "proto"}}
	}
	now := metav1.NewMicroTime(time.Now())
	ref := corev1.ObjectReference{Kind: "ConfigMap", Namespace: ns, Name: "cfg", APIVersion: "v1"}
	rules := []rbacv1.PolicyRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"configmaps"}}}
	roleRef := rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "proto-reader"}
	subjects := []rbacv1.Subject{{Kind: "User", APIGroup: rbacv1.GroupName, Name: "alice"}}
	return []builtin{
		typed("namespaces", core.Namespaces(), &corev1.Namespace{ObjectMeta: meta("proto-other")}),
		typed("configmaps", core.ConfigMaps(ns), &corev1.ConfigMap{ObjectMeta: meta("cfg"), Data: map[string]string{"a": "1"},
			BinaryData: map[string][]byte{"b": {0, 255}}}),
		typed("secrets", core.Secrets(ns), &corev1.Secret{ObjectMeta: meta("sec"), StringData: map[string]string{"user": "me"}}),
		typed("serviceaccounts", core.ServiceAccounts(ns), &corev1.ServiceAccount{ObjectMeta: meta("robot"),
			ImagePullSecrets: []corev1.LocalObjectReference{{Name: "pull"}}, AutomountServiceAccountToken: ptrTo(false)}),
		typed("events", core.Events(ns), &corev1.Event{ObjectMeta: meta("cfg.1"), InvolvedObject: ref, Reason: "Tested", Message: "m",
			Type: corev1.EventTypeNormal, Source: corev1.EventSource{Component: "proto"}, Count: 1,
			FirstTimestamp: metav1.NewTime(now.Time), LastTimestamp: metav1.NewTime(now.Time)}),
		typed("events.k8s.io", cs.EventsV1().Events(ns), &eventsv1.Event{ObjectMeta: meta("cfg.2"), EventTime: now, Regarding: ref,
			ReportingController: "example.com/proto", ReportingInstance: "proto-0", Action: "Test", Reason: "Tested", Type: "Normal", Note: "n"}),
		typed("leases", cs.CoordinationV1().Leases(ns), &coordinationv1.Lease{ObjectMeta: meta("leader"), Spec: coordinationv1.LeaseSpec{
			HolderIdentity: ptrTo("a"), LeaseDurationSeconds: ptrTo(int32(15)), AcquireTime: &now, RenewTime: &now}}),
		typed("clusterroles", rb.ClusterRoles(), &rbacv1.ClusterRole{ObjectMeta: meta("proto-reader"), Rules: rules}),
		typed("roles", rb.Roles(ns), &rbacv1.Role{ObjectMeta: meta("reader"), Rules: rules}),
		typed("clusterrolebindings", rb.ClusterRoleBindings(), &rbacv1.ClusterRoleBinding{ObjectMeta: meta("proto-readers"), Subjects: subjects, RoleRef: roleRef}),
		typed("rolebindings", rb.RoleBindings(ns), &rbacv1.RoleBinding{ObjectMeta: meta("readers"), Subjects: subjects, RoleRef: roleRef}),
	}
}

// typedClient is the part of a generated typed client a builtin uses.
type typedClient[T runtime.Object, L runtime.Object] interface {
	Create(context.Context, T, metav1.CreateOptions) (T, error)
	Get(context.Context, string, metav1.GetOptions) (T, error)
	List(context.Context, metav1.ListOptions) (L, error)
	Watch(context.Context, metav1.ListOptions) (watch.Interface, error)
}

func typed[T runtime.Object, L runtime.Object](name string, c typedClient[T, L], obj T) builtin {
	return builtin{
		name: name,
		create: func(ctx context.Context) (metav1.Object, error) {
			o, err := c.Create(ctx, obj, metav1.CreateOptions{})
			return asMeta(o), err
		},
		get: func(ctx context.Context, n string) (metav1.Object, error) {
			o, err := c.Get(ctx, n, metav1.GetOptions{})
			return asMeta(o), err
		},
		list: func(ctx context.Context) (int, error) {
			l, err := c.List(ctx, metav1.ListOptions{LabelSelector: "app=proto"})
			if err != nil {
				return 0, err
			}
			items, err := listLen(l)
			return items, err
		},
		watch: func(ctx context.Context, rv string) (watch.Interface, error) {
			return c.Watch(ctx, metav1.ListOptions{LabelSelector: "app=proto", ResourceVersion: rv})
		},
	}
}

func asMeta(o runtime.Object) metav1.Object {
	m, _ := o.(metav1.Object)
	return m
}

// listLen counts the items of a typed list.
func listLen(l runtime.Object) (int, error) {
	switch l := l.(type) {
	case *corev1.NamespaceList:
		return len(l.Items), nil
	case *corev1.ConfigMapList:
		return len(l.Items), nil
	case *corev1.SecretList:
		return len(l.Items), nil
	case *corev1.ServiceAccountList:
		return len(l.Items), nil
	case *corev1.EventList:
		return len(l.Items), nil
	case *eventsv1.EventList:
		return len(l.Items), nil
	case *coordinationv1.LeaseList:
		return len(l.Items), nil
	case *rbacv1.ClusterRoleList:
		return len(l.Items), nil
	case *rbacv1.RoleList:
		return len(l.Items), nil
	case *rbacv1.ClusterRoleBindingList:
		return len(l.Items), nil
	case *rbacv1.RoleBindingList:
		return len(l.Items), nil
	}
	return 0, fmt.Errorf("unexpected list %T", l)
}

// TestProtobufReviews posts each review kind in protobuf, as
// apimachinery writes it, and checks that kapi answers in protobuf that
// apimachinery reads and writes back to the same bytes, carrying what
// the request held (selectors) and what the answer adds (the user's
// extra attributes).
func TestProtobufReviews(t *testing.T) {
	ts := startBuiltinServer(t)
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{authorizationv1.AddToScheme, authenticationv1.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	ser := k8sproto.NewSerializer(scheme, scheme)
	cases := []struct {
		path  string
		req   runtime.Object
		check func(runtime.Object) bool
	}{
		{"/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
			&authorizationv1.SelfSubjectAccessReview{TypeMeta: metav1.TypeMeta{Kind: "SelfSubjectAccessReview", APIVersion: "authorization.k8s.io/v1"},
				Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{
					Namespace: "proto-ns", Verb: "list", Resource: "configmaps",
					FieldSelector: &authorizationv1.FieldSelectorAttributes{RawSelector: "metadata.name=a"},
					LabelSelector: &authorizationv1.LabelSelectorAttributes{Requirements: []metav1.LabelSelectorRequirement{
						{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{"proto"}}}}}}},
			func(o runtime.Object) bool {
				r := o.(*authorizationv1.SelfSubjectAccessReview)
				ra := r.Spec.ResourceAttributes
				return r.Status.Allowed && ra.FieldSelector != nil && ra.FieldSelector.RawSelector == "metadata.name=a" &&
					ra.LabelSelector != nil && len(ra.LabelSelector.Requirements) == 1 && ra.LabelSelector.Requirements[0].Values[0] == "proto"
			}},
		{"/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
			&authorizationv1.SelfSubjectRulesReview{TypeMeta: metav1.TypeMeta{Kind: "SelfSubjectRulesReview", APIVersion: "authorization.k8s.io/v1"},
				Spec: authorizationv1.SelfSubjectRulesReviewSpec{Namespace: "proto-ns"}},
			func(o runtime.Object) bool {
				return o.(*authorizationv1.SelfSubjectRulesReview).Spec.Namespace == "proto-ns"
			}},
		{"/apis/authentication.k8s.io/v1/selfsubjectreviews",
			&authenticationv1.SelfSubjectReview{TypeMeta: metav1.TypeMeta{Kind: "SelfSubjectReview", APIVersion: "authentication.k8s.io/v1"}},
			func(o runtime.Object) bool {
				u := o.(*authenticationv1.SelfSubjectReview).Status.UserInfo
				return u.Username == "proto-user" && u.UID == "u-1" && len(u.Groups) == 2 &&
					len(u.Extra["scopes"]) == 2 && u.Extra["empty"] != nil && len(u.Extra["empty"]) == 0
			}},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			var body bytes.Buffer
			if err := ser.Encode(c.req, &body); err != nil {
				t.Fatal(err)
			}
			req, _ := http.NewRequest(http.MethodPost, ts.URL+c.path, &body)
			req.Header.Set("Content-Type", protobufType)
			req.Header.Set("Accept", protobufType)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			got, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusCreated || resp.Header.Get("Content-Type") != protobufType {
				t.Fatalf("%d %s: %q", resp.StatusCode, resp.Header.Get("Content-Type"), got)
			}
			answer, _, err := ser.Decode(got, nil, nil)
			if err != nil {
				t.Fatalf("apimachinery cannot read the answer: %v", err)
			}
			if !c.check(answer) {
				t.Errorf("answer: %+v", answer)
			}
			var again bytes.Buffer
			if err := ser.Encode(answer, &again); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, again.Bytes()) {
				t.Errorf("kapi's answer is not the bytes apimachinery writes for it:\nkapi: % x\nk8s:  % x", got, again.Bytes())
			}
		})
	}
}
