package runtimekind_test

import (
	"context"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/kapi-dev/kapi/apiserver"
	webappv1 "github.com/kapi-dev/kapi/kube/internal/guestbook/v1"
	"github.com/kapi-dev/kapi/kube/runtimekind"
)

func newScheme(t testing.TB) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := webappv1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

func guestbookCRD(t testing.TB) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	b, err := os.ReadFile("testdata/webapp.example.com_guestbooks.yaml")
	if err != nil {
		t.Fatal(err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(b, crd); err != nil {
		t.Fatal(err)
	}
	return crd
}

// serve runs a kapi server with the kind and returns a typed
// controller-runtime client of the same Go package.
func serve(t *testing.T, k apiserver.Kind, scheme *runtime.Scheme) client.Client {
	t.Helper()
	srv := apiserver.New(apiserver.Options{})
	srv.Register(k)
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(func() { ts.Close(); srv.Close() })
	c, err := client.New(&rest.Config{Host: ts.URL}, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestTypedClient registers Guestbook, an apimachinery type with
// kubebuilder markers, from its generated CRD and from the Go type
// alone, and reads and writes it through a typed controller-runtime
// client built from the same package: defaults, validation, the status
// subresource, lists and deletes behave as kube-apiserver's for the CRD.
func TestTypedClient(t *testing.T) {
	scheme := newScheme(t)
	fromCRD, err := runtimekind.Kind(scheme, &webappv1.Guestbook{}, runtimekind.Options{CRD: guestbookCRD(t)})
	if err != nil {
		t.Fatal(err)
	}
	fromType, err := runtimekind.Kind(scheme, &webappv1.Guestbook{}, runtimekind.Options{
		ShortNames: []string{"gb"}, Categories: []string{"all"}, Subresources: apiserver.Subresources{Status: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, k := range map[string]apiserver.Kind{"crd": fromCRD, "type": fromType} {
		t.Run(name, func(t *testing.T) { exerciseGuestbook(t, serve(t, k, scheme)) })
	}
	t.Run("selectable fields", func(t *testing.T) {
		c := serve(t, fromCRD, scheme)
		ctx := context.Background()
		for name, theme := range map[string]string{"a": "dark", "b": "light", "c": "dark"} {
			gb := &webappv1.Guestbook{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}, Spec: webappv1.GuestbookSpec{Title: "t", Theme: theme}}
			if err := c.Create(ctx, gb); err != nil {
				t.Fatal(err)
			}
		}
		var list webappv1.GuestbookList
		if err := c.List(ctx, &list, client.InNamespace("default"), client.MatchingFields{"spec.theme": "dark"}); err != nil {
			t.Fatal(err)
		}
		if len(list.Items) != 2 || list.Items[0].Name != "a" || list.Items[1].Name != "c" {
			t.Errorf("spec.theme=dark selected %d: %+v", len(list.Items), list.Items)
		}
	})
}

func exerciseGuestbook(t *testing.T, c client.Client) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	gb := &webappv1.Guestbook{
		ObjectMeta: metav1.ObjectMeta{Name: "visitors", Namespace: "default", Labels: map[string]string{"app": "web"}},
		Spec:       webappv1.GuestbookSpec{Title: "our visitors", Theme: "dark"},
	}
	if err := c.Create(ctx, gb); err != nil {
		t.Fatalf("create: %v", err)
	}
	// The create answered with the stored object, defaults applied.
	if gb.UID == "" || gb.ResourceVersion == "" || gb.Generation != 1 || gb.Spec.Replicas == nil || *gb.Spec.Replicas != 1 {
		t.Fatalf("created: %+v", gb)
	}
	var got webappv1.Guestbook
	if err := c.Get(ctx, client.ObjectKeyFromObject(gb), &got); err != nil {
		t.Fatalf("get: %v", err)
	}
	if diff := cmp.Diff(gb.Spec, got.Spec); diff != "" {
		t.Errorf("read back spec (-want +got):\n%s", diff)
	}
	if got.Labels["app"] != "web" {
		t.Errorf("read back labels %v, want app=web", got.Labels)
	}

	// Status through /status: the main resource keeps it as it is.
	now := metav1.NewTime(time.Date(2026, 11, 25, 18, 0, 0, 0, time.UTC))
	got.Status.Entries = 3
	got.Status.LastEntry = &now
	meta.SetStatusCondition(&got.Status.Conditions, metav1.Condition{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Serving", Message: "up", LastTransitionTime: now})
	if err := c.Status().Update(ctx, &got); err != nil {
		t.Fatalf("status update: %v", err)
	}
	got.Spec.Title = "changed"
	got.Status.Entries = 99
	if err := c.Update(ctx, &got); err != nil {
		t.Fatalf("update: %v", err)
	}
	if got.Status.Entries != 3 || got.Generation != 2 || !got.Status.LastEntry.Equal(&now) || !meta.IsStatusConditionTrue(got.Status.Conditions, "Ready") {
		t.Errorf("after an update of the main resource: generation %d, status %+v", got.Generation, got.Status)
	}

	// The schema's rules hold: kubebuilder's markers in the CRD, kapi's
	// tags on the Go type.
	for _, bad := range []webappv1.GuestbookSpec{
		{Title: "Upper Case"},
		{Title: "ok", Replicas: ptr(int32(11))},
		{Title: "ok", Theme: "neon"},
	} {
		err := c.Create(ctx, &webappv1.Guestbook{ObjectMeta: metav1.ObjectMeta{GenerateName: "bad-", Namespace: "default"}, Spec: bad})
		if !apierrors.IsInvalid(err) {
			t.Errorf("create %+v: %v, want 422 Invalid", bad, err)
		}
	}

	var list webappv1.GuestbookList
	if err := c.List(ctx, &list, client.InNamespace("default"), client.MatchingLabels{"app": "web"}); err != nil {
		t.Fatalf("list: %v", err)
	}
	if len(list.Items) != 1 || list.Items[0].Spec.Title != "changed" || list.ResourceVersion == "" {
		t.Errorf("list: %+v", list)
	}
	if err := c.Delete(ctx, &got); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(gb), &got); !apierrors.IsNotFound(err) {
		t.Errorf("get after delete: %v", err)
	}
}

func ptr[T any](v T) *T { return &v }
