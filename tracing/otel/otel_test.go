package otel_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/meta"
	kapiotel "github.com/kapi-dev/kapi/tracing/otel"
)

type widget struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            struct {
		Color string `json:"color,omitempty"`
	} `json:"spec,omitempty"`
}

const widgets = "/apis/stable.example.com/v1/namespaces/default/widgets"

// tracedServer serves widgets with a tracer recording into rec, at the
// default sampling rate (requests whose traceparent is sampled).
func tracedServer(t *testing.T, opts apiserver.Options) (*httptest.Server, *tracetest.SpanRecorder) {
	t.Helper()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	opts.Tracer = kapiotel.New(tp, kapiotel.Options{})
	srv := apiserver.New(opts)
	srv.Register(apiserver.Kind{Group: "stable.example.com", Version: "v1", Kind: "Widget", Resource: "widgets",
		Namespaced: true, New: func() meta.Object { return &widget{} }})
	ts := httptest.NewServer(srv)
	t.Cleanup(func() {
		ts.Close()
		srv.Close()
	})
	return ts, rec
}

// do sends one request and checks its status code.
func do(t *testing.T, method, url, contentType, body string, header map[string]string, want int) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != want {
		t.Fatalf("%s %s: %d, want %d", method, url, resp.StatusCode, want)
	}
}

// waitForRequestSpan polls until the request span called name has ended
// in the trace traceID (a client can read its answer before the server
// ends the span), and returns it with the trace's spans ended so far.
func waitForRequestSpan(t *testing.T, rec *tracetest.SpanRecorder, traceID, name string) (sdktrace.ReadOnlySpan, []sdktrace.ReadOnlySpan) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		var root sdktrace.ReadOnlySpan
		var spans []sdktrace.ReadOnlySpan
		for _, s := range rec.Ended() {
			if s.SpanContext().TraceID().String() != traceID {
				continue
			}
			spans = append(spans, s)
			if s.Name() == name {
				root = s
			}
		}
		if root != nil {
			return root, spans
		}
		if time.Now().After(deadline) {
			t.Fatalf("no ended %q span in trace %s; ended there: %v", name, traceID, names(spans))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// childrenOf returns the spans directly under parent.
func childrenOf(parent sdktrace.ReadOnlySpan, spans []sdktrace.ReadOnlySpan) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range spans {
		if s.Parent().SpanID() == parent.SpanContext().SpanID() {
			out = append(out, s)
		}
	}
	return out
}

func names(spans []sdktrace.ReadOnlySpan) map[string]int {
	out := map[string]int{}
	for _, s := range spans {
		out[s.Name()]++
	}
	return out
}

// TestSpans: a create carrying a traceparent gives a server span in the
// client's trace, under the client's span, with decode, admission,
// storage and encode spans under it.
func TestSpans(t *testing.T) {
	admit := func(context.Context, *apiserver.AdmissionRequest) error { return nil }
	ts, rec := tracedServer(t, apiserver.Options{MutatingAdmission: []apiserver.AdmissionFunc{admit}})

	const traceID, parentID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	do(t, "POST", ts.URL+widgets, "application/json",
		`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"a"}}`,
		map[string]string{"traceparent": "00-" + traceID + "-" + parentID + "-01"}, http.StatusCreated)

	root, spans := waitForRequestSpan(t, rec, traceID, "POST widgets")
	if got := root.SpanContext().TraceID().String(); got != traceID {
		t.Errorf("request span in trace %s, want the client's %s", got, traceID)
	}
	if got := root.Parent().SpanID().String(); got != parentID || !root.Parent().IsRemote() {
		t.Errorf("request span's parent %s, want the client's span %s", got, parentID)
	}
	children := names(childrenOf(root, spans))
	for _, name := range []string{"decode", "admission.mutating", "storage.put", "encode"} {
		if children[name] == 0 {
			t.Errorf("no %s span under the request span; children: %v", name, children)
		}
	}
	attrs := map[string]string{}
	for _, a := range root.Attributes() {
		attrs[string(a.Key)] = a.Value.Emit()
	}
	if attrs["http.response.status_code"] != "201" || attrs["http.request.method"] != "POST" {
		t.Errorf("request span attributes: %v", attrs)
	}
}

// TestPatchDecodeSpans: a patch's body and the object it patches into
// are decoded under "decode" spans of the request, for every patch type
// including server-side apply; a body that does not decode fails its
// decode span.
func TestPatchDecodeSpans(t *testing.T) {
	ts, rec := tracedServer(t, apiserver.Options{})
	do(t, "POST", ts.URL+widgets, "application/json",
		`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"a"}}`, nil, http.StatusCreated)

	tests := []struct {
		name, verb, contentType, body, query string
		code                                 int
		failed                               bool // the first decode span failed
	}{
		{name: "merge", verb: "PATCH", contentType: "application/merge-patch+json",
			body: `{"spec":{"color":"red"}}`, code: http.StatusOK},
		{name: "json", verb: "PATCH", contentType: "application/json-patch+json",
			body: `[{"op":"add","path":"/spec/color","value":"blue"}]`, code: http.StatusOK},
		{name: "strategic", verb: "PATCH", contentType: "application/strategic-merge-patch+json",
			body: `{"spec":{"color":"green"}}`, code: http.StatusOK},
		{name: "apply", verb: "APPLY", contentType: "application/apply-patch+yaml", query: "?fieldManager=test&force=true",
			body: "apiVersion: stable.example.com/v1\nkind: Widget\nmetadata:\n  name: a\nspec:\n  color: pink\n", code: http.StatusOK},
		{name: "bad json patch", verb: "PATCH", contentType: "application/json-patch+json",
			body: `{"not":"a list"`, code: http.StatusBadRequest, failed: true},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Each request carries its own trace so that its spans can be
			// told from the others'.
			traceID := fmt.Sprintf("%032x", i+1)
			do(t, "PATCH", ts.URL+widgets+"/a"+tt.query, tt.contentType, tt.body,
				map[string]string{"traceparent": "00-" + traceID + "-00f067aa0ba902b7-01"}, tt.code)
			root, spans := waitForRequestSpan(t, rec, traceID, tt.verb+" widgets")
			var decodes []sdktrace.ReadOnlySpan
			for _, s := range childrenOf(root, spans) {
				if s.Name() == "decode" {
					decodes = append(decodes, s)
				}
			}
			if len(decodes) == 0 {
				t.Fatalf("no decode span under the %s request; children: %v", tt.verb, names(childrenOf(root, spans)))
			}
			if tt.failed {
				if got := decodes[0].Status().Code; got != codes.Error {
					t.Errorf("decode span status %v, want Error", got)
				}
				return
			}
			// One span for the body, one for the patched object.
			if len(decodes) != 2 {
				t.Errorf("%d decode spans under the %s request, want 2", len(decodes), tt.verb)
			}
			for _, d := range decodes {
				if d.Status().Code == codes.Error {
					t.Errorf("decode span failed: %s", d.Status().Description)
				}
			}
		})
	}
}
