package apiserver_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/meta"
)

// countingHandler counts the error records logged.
type countingHandler struct{ errors atomic.Int32 }

func (h *countingHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *countingHandler) Handle(_ context.Context, r slog.Record) error {
	if r.Level >= slog.LevelError {
		h.errors.Add(1)
	}
	return nil
}
func (h *countingHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *countingHandler) WithGroup(string) slog.Handler      { return h }

// A host that ignores Err must not serve the kinds that did register:
// every request, including the one for the valid kind and health checks,
// is a 500 Status naming every registration problem, logged once.
func TestRegistrationFailureServesNothing(t *testing.T) {
	log := &countingHandler{}
	srv := apiserver.New(apiserver.Options{Logger: slog.New(log)})
	bad := gadgetKind()
	bad.Version = "v1.0"
	noNew := widgetKind()
	noNew.Kind, noNew.Resource, noNew.New = "Thing", "things", nil
	srv.Register(widgetKind()).Register(bad).Register(noNew)

	err := srv.Err()
	if err == nil {
		t.Fatal("Err() = nil after two failed registrations")
	}
	for _, want := range []string{`kind Gadget: version "v1.0"`, "kind Thing: New is required"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Err() = %q, want it to name %q", err, want)
		}
	}

	ts := httptest.NewServer(srv) // Err ignored
	t.Cleanup(ts.Close)
	for _, path := range []string{widgetsPath, "/apis", "/healthz", widgetsPath + "/w1"} {
		r := do(t, ts, "GET", path, "", "")
		if r.code != http.StatusInternalServerError {
			t.Fatalf("GET %s: %d %s, want 500", path, r.code, r.body)
		}
		st := decodeStatus(t, r)
		if st.Reason != meta.StatusReasonInternalError || !strings.Contains(st.Message, `version "v1.0"`) ||
			!strings.Contains(st.Message, "New is required") {
			t.Errorf("GET %s: Status %+v, want InternalError naming both registration errors", path, st)
		}
	}
	if r := do(t, ts, "POST", widgetsPath, "application/json",
		`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"w1"}}`); r.code != http.StatusInternalServerError {
		t.Errorf("POST: %d %s, want 500", r.code, r.body)
	}
	if n := log.errors.Load(); n != 1 {
		t.Errorf("logged %d errors, want the registration failure logged once", n)
	}
}

func TestRegisterAfterServingPanics(t *testing.T) {
	srv := apiserver.New(apiserver.Options{})
	srv.Register(widgetKind())
	srv.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/apis", nil))
	defer func() {
		p := recover()
		if p == nil || !strings.Contains(p.(string), "after the server started serving") {
			t.Fatalf("Register after serving: recovered %v, want a panic", p)
		}
	}()
	srv.Register(gadgetKind())
}

// Registering the same resource twice is reported, and so is the problem
// of a later kind: every problem, not only the first.
func TestRegisterReportsEveryProblem(t *testing.T) {
	srv := apiserver.New(apiserver.Options{})
	noResource := gadgetKind()
	noResource.Resource = ""
	srv.Register(widgetKind()).Register(widgetKind()).Register(noResource)
	err := srv.Err()
	if err == nil {
		t.Fatal("Err() = nil")
	}
	msg := err.Error()
	if !strings.Contains(msg, "already registered") || !strings.Contains(msg, "Kind, Resource and Version are required") {
		t.Errorf("Err() = %q, want both problems", msg)
	}
}
