package apiserver_test

import (
	"context"
	"encoding/json"
	"errors"
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

// Admission functions see every write: mutating ones may change the
// object before it is validated, validating ones may only reject it. An
// error that is not a status.Error is answered as 403 Forbidden.
func Example_admission() {
	srv := apiserver.New(apiserver.Options{
		MutatingAdmission: []apiserver.AdmissionFunc{
			func(_ context.Context, a *apiserver.AdmissionRequest) error {
				if g, ok := a.Object.(*Gizmo); ok && g.Spec.Color == "" {
					g.Spec.Color = "grey"
				}
				return nil
			},
		},
		ValidatingAdmission: []apiserver.AdmissionFunc{
			func(_ context.Context, a *apiserver.AdmissionRequest) error {
				if a.Operation == apiserver.OperationDelete && a.Name == "precious" {
					return errors.New("precious gizmos stay")
				}
				return nil
			},
		},
	})
	srv.Register(apiserver.Kind{
		Group: "toys.example.com", Version: "v1", Kind: "Gizmo", Resource: "gizmos",
		Namespaced: true,
		New:        func() meta.Object { return &Gizmo{} },
	})
	ts := httptest.NewServer(srv)
	defer ts.Close()
	path := ts.URL + "/apis/toys.example.com/v1/namespaces/default/gizmos"

	resp, err := http.Post(path, "application/json", strings.NewReader(`{"metadata":{"name":"precious"}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.Status, strings.Contains(string(body), `"color":"grey"`))

	req, _ := http.NewRequest(http.MethodDelete, path+"/precious", nil)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	var st meta.Status
	_ = json.NewDecoder(resp.Body).Decode(&st)
	resp.Body.Close()
	fmt.Println(resp.Status, st.Message)
	// Output:
	// 201 Created true
	// 403 Forbidden gizmos.toys.example.com "precious" is forbidden: precious gizmos stay
}

// Lamp is a kind with a status that only its /status subresource writes.
type Lamp struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            LampSpec   `json:"spec,omitempty"`
	Status          LampStatus `json:"status,omitempty"`
}

// LampSpec is the desired state of a Lamp.
type LampSpec struct {
	Color string `json:"color,omitempty"`
}

// LampStatus is the observed state of a Lamp.
type LampStatus struct {
	Lit bool `json:"lit,omitempty"`
}

// A kind names the fields that field selectors may use, each with the
// function that reads it, and the subresources it serves.
func Example_kind() {
	srv := apiserver.New(apiserver.Options{})
	srv.Register(apiserver.Kind{
		Group: "toys.example.com", Version: "v1", Kind: "Lamp", Resource: "lamps",
		Namespaced:   true,
		New:          func() meta.Object { return &Lamp{} },
		Subresources: apiserver.Subresources{Status: true},
		SelectableFields: map[string]func(meta.Object) string{
			"spec.color": func(obj meta.Object) string { return obj.(*Lamp).Spec.Color },
		},
	})
	if err := srv.Err(); err != nil {
		fmt.Println(err)
		return
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	path := ts.URL + "/apis/toys.example.com/v1/namespaces/default/lamps"
	for _, l := range []string{`{"metadata":{"name":"a"},"spec":{"color":"red"}}`, `{"metadata":{"name":"b"},"spec":{"color":"blue"}}`} {
		resp, err := http.Post(path, "application/json", strings.NewReader(l))
		if err != nil {
			fmt.Println(err)
			return
		}
		resp.Body.Close()
	}

	resp, err := http.Get(path + "?fieldSelector=spec.color%3Dred")
	if err != nil {
		fmt.Println(err)
		return
	}
	var list struct{ Items []Lamp }
	_ = json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	for _, l := range list.Items {
		fmt.Println(l.Name, l.Spec.Color)
	}

	resp, err = http.Get(path + "/a/status")
	if err != nil {
		fmt.Println(err)
		return
	}
	resp.Body.Close()
	fmt.Println("/status:", resp.Status)
	// Output:
	// a red
	// /status: 200 OK
}

// A host mounts the server at the paths it answers, next to its own
// handlers, or under a path prefix that it strips.
func ExampleServer_Patterns() {
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
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "the host's home page") })
	for _, p := range srv.Patterns() {
		mux.Handle(p, srv)
	}
	mux.Handle("/kapi/", http.StripPrefix("/kapi", srv))
	ts := httptest.NewServer(mux)
	defer ts.Close()

	for _, path := range []string{"/", "/apis/toys.example.com/v1/namespaces/default/gizmos", "/kapi/apis/toys.example.com/v1/namespaces/default/gizmos"} {
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			fmt.Println(err)
			return
		}
		var list struct{ Kind string }
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if json.Unmarshal(body, &list) != nil {
			list.Kind = string(body)
		}
		fmt.Println(path, resp.Status, list.Kind)
	}
	// Output:
	// / 200 OK the host's home page
	// /apis/toys.example.com/v1/namespaces/default/gizmos 200 OK GizmoList
	// /kapi/apis/toys.example.com/v1/namespaces/default/gizmos 200 OK GizmoList
}
