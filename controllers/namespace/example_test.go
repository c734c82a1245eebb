package namespace_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/controllers/namespace"
	"github.com/kapi-dev/kapi/kinds/corev1"
)

// Check namespaces on every write: the lifecycle check is an admission
// function, fed by a mirror of the server's namespaces.
func Example() {
	lc := namespace.NewLifecycle()
	srv := apiserver.New(apiserver.Options{MutatingAdmission: []apiserver.AdmissionFunc{lc.Admit}}).
		Register(corev1.NamespaceKind()).Register(corev1.ConfigMapKind())
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go lc.Run(ctx, srv)
	if err := namespace.EnsureSystem(ctx, srv); err != nil {
		panic(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	for _, ns := range []string{"default", "nowhere"} {
		resp, err := http.Post(ts.URL+"/api/v1/namespaces/"+ns+"/configmaps", "application/json", strings.NewReader(`{"metadata":{"name":"c"}}`))
		if err != nil {
			panic(err)
		}
		resp.Body.Close()
		fmt.Println(ns, resp.StatusCode)
	}
	// Output:
	// default 201
	// nowhere 404
}
