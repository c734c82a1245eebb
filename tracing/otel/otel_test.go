package otel_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/meta"
	kapiotel "github.com/kapi-dev/kapi/tracing/otel"
)

type widget struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
}

// TestSpans: a create carrying a traceparent gives a server span in the
// client's trace, under the client's span, with decode, admission,
// storage and encode spans under it.
func TestSpans(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	admit := func(context.Context, *apiserver.AdmissionRequest) error { return nil }
	srv := apiserver.New(apiserver.Options{Tracer: kapiotel.New(tp), MutatingAdmission: []apiserver.AdmissionFunc{admit}})
	srv.Register(apiserver.Kind{Group: "stable.example.com", Version: "v1", Kind: "Widget", Resource: "widgets",
		Namespaced: true, New: func() meta.Object { return &widget{} }})
	ts := httptest.NewServer(srv)
	defer ts.Close()
	defer srv.Close()

	const traceID, parentID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	req, _ := http.NewRequest("POST", ts.URL+"/apis/stable.example.com/v1/namespaces/default/widgets",
		strings.NewReader(`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"a"}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("traceparent", "00-"+traceID+"-"+parentID+"-01")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %v %v", resp, err)
	}
	resp.Body.Close()

	spans := rec.Ended()
	var root sdktrace.ReadOnlySpan
	children := map[string]bool{}
	for _, s := range spans {
		if s.Name() == "POST widgets" {
			root = s
		}
	}
	if root == nil {
		t.Fatalf("no request span among %d", len(spans))
	}
	if got := root.SpanContext().TraceID().String(); got != traceID {
		t.Errorf("request span in trace %s, want the client's %s", got, traceID)
	}
	if got := root.Parent().SpanID().String(); got != parentID || !root.Parent().IsRemote() {
		t.Errorf("request span's parent %s, want the client's span %s", got, parentID)
	}
	for _, s := range spans {
		if s.Parent().SpanID() == root.SpanContext().SpanID() {
			children[s.Name()] = true
		}
	}
	for _, name := range []string{"decode", "admission.mutating", "storage.put", "encode"} {
		if !children[name] {
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
