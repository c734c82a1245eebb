package apiserver_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/meta"
)

// Gizmo is a kind defined by the host service.
type Gizmo struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            GizmoSpec `json:"spec,omitempty"`
}

// GizmoSpec is the desired state of a Gizmo.
type GizmoSpec struct {
	Color string `json:"color,omitempty" pattern:"^[a-z]+$"`
}

// A host registers its kinds and mounts the server on its own mux.
func Example() {
	srv := apiserver.New(apiserver.Options{})
	srv.Register(apiserver.Kind{
		Group: "toys.example.com", Version: "v1", Kind: "Gizmo", Resource: "gizmos",
		Namespaced: true,
		New:        func() meta.Object { return &Gizmo{} },
	})
	if err := srv.Err(); err != nil {
		fmt.Println(err)
		return
	}
	mux := http.NewServeMux()
	mux.Handle("/", srv)
	ts := httptest.NewServer(mux)
	defer ts.Close()

	resp, err := http.Post(ts.URL+"/apis/toys.example.com/v1/namespaces/default/gizmos", "application/json",
		strings.NewReader(`{"apiVersion":"toys.example.com/v1","kind":"Gizmo","metadata":{"name":"g"},"spec":{"color":"red"}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	resp.Body.Close()
	fmt.Println(resp.Status)

	resp, err = http.Get(ts.URL + "/apis/toys.example.com/v1/namespaces/default/gizmos/missing")
	if err != nil {
		fmt.Println(err)
		return
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.Status)
	fmt.Print(string(body))
	// Output:
	// 201 Created
	// 404 Not Found
	// {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"gizmos.toys.example.com \"missing\" not found","reason":"NotFound","details":{"name":"missing","group":"toys.example.com","kind":"gizmos"},"code":404}
}
