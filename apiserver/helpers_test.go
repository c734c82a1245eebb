package apiserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// widget is a small kind for handler tests.
type widget struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            widgetSpec   `json:"spec,omitempty"`
	Status          widgetStatus `json:"status,omitempty"`
}

type widgetSpec struct {
	Replicas *int32       `json:"replicas,omitempty"`
	Color    string       `json:"color,omitempty"`
	Tags     []string     `json:"tags,omitempty" listType:"set"`
	Ports    []widgetPort `json:"ports,omitempty" listType:"map" listMapKey:"name" patchStrategy:"merge" patchMergeKey:"name"`
}

type widgetPort struct {
	Name string `json:"name"`
	Port int32  `json:"port"`
}

type widgetStatus struct {
	ReadyReplicas int32  `json:"readyReplicas,omitempty"`
	Selector      string `json:"selector,omitempty"`
}

type gadget struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            struct {
		Owner string `json:"owner,omitempty"`
	} `json:"spec,omitempty"`
}

func widgetKind() apiserver.Kind {
	return apiserver.Kind{
		Group: "stable.example.com", Version: "v1", Kind: "Widget", Resource: "widgets",
		ShortNames: []string{"wd"}, Namespaced: true,
		Subresources: apiserver.Subresources{Status: true, Scale: &apiserver.Scale{SpecReplicasPath: ".spec.replicas",
			StatusReplicasPath: ".status.readyReplicas", LabelSelectorPath: ".status.selector"}},
		New: func() meta.Object { return &widget{} },
		Validate: func(_ context.Context, obj, _ meta.Object) status.FieldErrors {
			w := obj.(*widget)
			if w.Spec.Replicas != nil && *w.Spec.Replicas > 1000 {
				return status.FieldErrors{status.InvalidValue(status.NewPath("spec", "replicas"), *w.Spec.Replicas,
					"must be less than or equal to 1000")}
			}
			return nil
		},
		SelectableFields: map[string]func(meta.Object) string{
			"spec.color": func(obj meta.Object) string { return obj.(*widget).Spec.Color },
		},
	}
}

func gadgetKind() apiserver.Kind {
	return apiserver.Kind{
		Group: "stable.example.com", Version: "v1", Kind: "Gadget", Resource: "gadgets",
		New: func() meta.Object { return &gadget{} },
	}
}

func newTestServer(t testing.TB) *httptest.Server {
	t.Helper()
	return serveKinds(t, apiserver.Options{}, widgetKind(), gadgetKind())
}

// serveKinds starts a server of kinds with opts, closed with the test.
func serveKinds(t testing.TB, opts apiserver.Options, kinds ...apiserver.Kind) *httptest.Server {
	t.Helper()
	srv := apiserver.New(opts)
	for _, k := range kinds {
		srv.Register(k)
	}
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return ts
}

type response struct {
	code   int
	header http.Header
	body   []byte
	close  bool // the server closes the connection ("Connection: close")
}

// testTransport sends every test request: no automatic gzip, so that
// tests see the Content-Encoding the server chose.
var testTransport = &http.Transport{DisableCompression: true}

// send makes one request with the given headers and returns the whole
// response.
func send(t testing.TB, url, method string, header map[string]string, body []byte) response {
	t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		if v != "" {
			req.Header.Set(k, v)
		}
	}
	resp, err := (&http.Client{Transport: testTransport}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{code: resp.StatusCode, header: resp.Header, body: b}
}

func do(t testing.TB, ts *httptest.Server, method, path, contentType, body string) response {
	t.Helper()
	var b []byte
	if body != "" {
		b = []byte(body)
	}
	return send(t, ts.URL+path, method, map[string]string{"Content-Type": contentType}, b)
}

func decodeStatus(t testing.TB, r response) meta.Status {
	t.Helper()
	var st meta.Status
	if err := json.Unmarshal(r.body, &st); err != nil {
		t.Fatalf("body is not a Status: %v: %s", err, r.body)
	}
	if st.Kind != "Status" || st.APIVersion != "v1" {
		t.Fatalf("body is not a Status: %s", r.body)
	}
	return st
}

func decodeWidget(t testing.TB, r response) widget {
	t.Helper()
	var w widget
	if err := json.Unmarshal(r.body, &w); err != nil {
		t.Fatalf("body is not a Widget: %v: %s", err, r.body)
	}
	return w
}

const widgetsPath = "/apis/stable.example.com/v1/namespaces/default/widgets"

func createWidget(t testing.TB, ts *httptest.Server, name string, spec string) widget {
	t.Helper()
	if spec == "" {
		spec = "{}"
	}
	r := do(t, ts, "POST", widgetsPath, "application/json",
		`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"`+name+`"},"spec":`+spec+`}`)
	if r.code != http.StatusCreated {
		t.Fatalf("create %s: %d %s", name, r.code, r.body)
	}
	return decodeWidget(t, r)
}

type httpTestServer struct {
	*httptest.Server
}

func startWith(t testing.TB, kinds ...apiserver.Kind) *httpTestServer {
	t.Helper()
	srv := apiserver.New(apiserver.Options{})
	for _, k := range kinds {
		srv.Register(k)
	}
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return &httpTestServer{ts}
}
