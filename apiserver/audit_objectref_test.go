package apiserver_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/audit"
)

// auditLog is an audit log a test reads while the server writes it: the
// record of a request is written after its response is sent.
type auditLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *auditLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// completed waits for the ResponseComplete record of the request with
// the given audit ID.
func (l *auditLog) completed(t *testing.T, id string) audit.Event {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		l.mu.Lock()
		lines := bytes.Split(bytes.TrimSpace(l.buf.Bytes()), []byte("\n"))
		l.mu.Unlock()
		for _, line := range lines {
			var ev audit.Event
			if json.Unmarshal(line, &ev) == nil && ev.AuditID == id && ev.Stage == audit.StageResponseComplete {
				return ev
			}
		}
	}
	t.Fatalf("no ResponseComplete record of request %s", id)
	return audit.Event{}
}

// TestAuditObjectRef: the objectRef of a write's audit record is
// completed from the object its body carries, as kube-apiserver's
// handlers do when they have decoded it (audit.LogRequestObject), at every
// level: a create gets the name (and the uid or resourceVersion a body
// states); an update the body's uid and resourceVersion; a patch, a
// delete and a create by generateName only what the URL says.
func TestAuditObjectRef(t *testing.T) {
	for _, level := range []audit.Level{audit.LevelMetadata, audit.LevelRequestResponse} {
		t.Run(string(level), func(t *testing.T) {
			log := &auditLog{}
			policy := &audit.Policy{Rules: []audit.PolicyRule{{Level: level}}}
			ts := serveKinds(t, apiserver.Options{Audit: audit.NewLogger(log, policy)}, widgetKind(), gadgetKind())
			ref := func(name, uid, rv, sub string) *audit.ObjectRef {
				return &audit.ObjectRef{Resource: "widgets", Namespace: "default", Name: name, UID: uid,
					APIGroup: "stable.example.com", APIVersion: "v1", ResourceVersion: rv, Subresource: sub}
			}
			created := auditedRequest(t, ts, "POST", widgetsPath, "application/json",
				`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{"color":"red"}}`, http.StatusCreated)
			w := decodeWidget(t, created.response)
			if d := cmp.Diff(ref("w1", "", "", ""), log.completed(t, created.id).ObjectRef); d != "" {
				t.Errorf("create: objectRef (-want +got):\n%s", d)
			}

			generated := auditedRequest(t, ts, "POST", widgetsPath, "application/json",
				`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"generateName":"w-"}}`, http.StatusCreated)
			if d := cmp.Diff(ref("", "", "", ""), log.completed(t, generated.id).ObjectRef); d != "" {
				t.Errorf("create by generateName: objectRef (-want +got):\n%s", d)
			}

			body, _ := json.Marshal(w)
			updated := auditedRequest(t, ts, "PUT", widgetsPath+"/w1", "application/json", string(body), http.StatusOK)
			if d := cmp.Diff(ref("w1", w.UID, w.ResourceVersion, ""), log.completed(t, updated.id).ObjectRef); d != "" {
				t.Errorf("update: objectRef (-want +got):\n%s", d)
			}

			patched := auditedRequest(t, ts, "PATCH", widgetsPath+"/w1", "application/merge-patch+json",
				`{"metadata":{"uid":"`+w.UID+`"},"spec":{"color":"blue"}}`, http.StatusOK)
			if d := cmp.Diff(ref("w1", "", "", ""), log.completed(t, patched.id).ObjectRef); d != "" {
				t.Errorf("patch: objectRef (-want +got):\n%s", d)
			}

			scaled := auditedRequest(t, ts, "PUT", widgetsPath+"/w1/scale", "application/json",
				`{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"w1","namespace":"default","uid":"`+w.UID+`"},"spec":{"replicas":2}}`, http.StatusOK)
			if d := cmp.Diff(ref("w1", w.UID, "", "scale"), log.completed(t, scaled.id).ObjectRef); d != "" {
				t.Errorf("scale update: objectRef (-want +got):\n%s", d)
			}

			deleted := auditedRequest(t, ts, "DELETE", widgetsPath+"/w1", "application/json",
				`{"kind":"DeleteOptions","apiVersion":"v1","preconditions":{"uid":"`+w.UID+`"}}`, http.StatusOK)
			if d := cmp.Diff(ref("w1", "", "", ""), log.completed(t, deleted.id).ObjectRef); d != "" {
				t.Errorf("delete: objectRef (-want +got):\n%s", d)
			}

			invalid := auditedRequest(t, ts, "POST", widgetsPath, "application/json",
				`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"w2"},"spec":{"replicas":2000}}`, http.StatusUnprocessableEntity)
			if d := cmp.Diff(ref("w2", "", "", ""), log.completed(t, invalid.id).ObjectRef); d != "" {
				t.Errorf("invalid create: objectRef (-want +got):\n%s", d)
			}

			review := auditedRequest(t, ts, "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", "application/json",
				`{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","spec":{"resourceAttributes":{"verb":"get","resource":"widgets"}}}`, http.StatusCreated)
			// A review's metadata must be empty, as kube-apiserver has it.
			want := &audit.ObjectRef{Resource: "selfsubjectaccessreviews", APIGroup: "authorization.k8s.io", APIVersion: "v1"}
			if d := cmp.Diff(want, log.completed(t, review.id).ObjectRef); d != "" {
				t.Errorf("review: objectRef (-want +got):\n%s", d)
			}
		})
	}
}

type audited struct {
	response
	id string
}

// auditedRequest sends a request and checks its status code; it returns
// the response and the request's audit ID.
func auditedRequest(t *testing.T, ts *httptest.Server, method, path, contentType, body string, code int) audited {
	t.Helper()
	r := do(t, ts, method, path, contentType, body)
	if r.code != code {
		t.Fatalf("%s %s: %d, want %d: %s", method, path, r.code, code, r.body)
	}
	id := r.header.Get("Audit-Id")
	if id == "" {
		t.Fatalf("%s %s: no Audit-Id", method, path)
	}
	return audited{response: r, id: id}
}
