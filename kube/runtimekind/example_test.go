package runtimekind_test

import (
	"fmt"
	"log"
	"net/http/httptest"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/apiserver"
	webappv1 "github.com/kapi-dev/kapi/kube/internal/guestbook/v1"
	"github.com/kapi-dev/kapi/kube/runtimekind"
)

// A host serves the Guestbook type of a kubebuilder API package; its
// controllers use the same package with controller-runtime's typed
// client. Pass Options.CRD (controller-gen's output, decoded) to take
// the names, schema and subresources from the generated CRD instead.
func ExampleKind() {
	scheme := runtime.NewScheme()
	if err := webappv1.AddToScheme(scheme); err != nil {
		log.Fatal(err)
	}
	k, err := runtimekind.Kind(scheme, &webappv1.Guestbook{}, runtimekind.Options{
		ShortNames: []string{"gb"}, Subresources: apiserver.Subresources{Status: true},
	})
	if err != nil {
		log.Fatal(err)
	}
	srv := apiserver.New(apiserver.Options{})
	defer srv.Close()
	srv.Register(k)
	if err := srv.Err(); err != nil {
		log.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	fmt.Println(k.Group, k.Version, k.Kind, k.Resource, k.Namespaced)
	// Output: webapp.example.com v1 Guestbook guestbooks true
}
