package webhook

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/apiserver/admission"
	"github.com/kapi-dev/kapi/auth"
	ar "github.com/kapi-dev/kapi/kinds/admissionregistrationv1"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// Every way a call can end, with failurePolicy Fail and Ignore, as kube's
// dispatchers answer it (messages from k8s.io/apiserver webhook/errors,
// request and the mutating and validating dispatchers).
func TestCallOutcomes(t *testing.T) {
	deny := func(st *meta.Status) func(http.ResponseWriter, *http.Request, *review) {
		return func(w http.ResponseWriter, _ *http.Request, rv *review) {
			respond(w, rv, reviewResponse{Allowed: false, Result: st})
		}
	}
	raw := func(code int, body string) func(http.ResponseWriter, *http.Request, *review) {
		return func(w http.ResponseWriter, _ *http.Request, _ *review) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(code)
			_, _ = w.Write([]byte(body))
		}
	}
	const failed = `^Internal error occurred: failed calling webhook "aw\.hook": `
	for _, tc := range []struct {
		name     string
		mutating bool
		op       admission.Operation
		dryRun   bool
		side     ar.SideEffectClass
		answer   func(http.ResponseWriter, *http.Request, *review)
		code     int32  // for Fail; 0: allowed
		msg      string // a regexp of the message
		ignored  bool   // with Ignore, the request is admitted
	}{
		{name: "allowed", answer: allow},
		{name: "denied with code and message", answer: deny(&meta.Status{Code: 429, Message: "slow down", Reason: "TooManyRequests"}),
			code: 429, msg: `^admission webhook "aw\.hook" denied the request: slow down$`},
		{name: "denied with reason only", answer: deny(&meta.Status{Reason: "Conflict"}),
			code: 400, msg: `^admission webhook "aw\.hook" denied the request: Conflict$`},
		{name: "denied without explanation", answer: deny(nil),
			code: 400, msg: `^admission webhook "aw\.hook" denied the request without explanation$`},
		{name: "denied by a mutating webhook", mutating: true, answer: deny(&meta.Status{Code: 403, Message: "no"}),
			code: 403, msg: `^admission webhook "aw\.hook" denied the request: no$`},
		{name: "uid mismatch", answer: func(w http.ResponseWriter, _ *http.Request, rv *review) {
			_ = json.NewEncoder(w).Encode(&review{APIVersion: rv.APIVersion, Kind: "AdmissionReview", Response: &reviewResponse{UID: "other", Allowed: true}})
		}, code: 500, msg: failed + `received invalid webhook response: expected response.uid="[0-9a-f-]{36}", got "other"$`, ignored: true},
		{name: "wrong kind", answer: func(w http.ResponseWriter, _ *http.Request, rv *review) {
			_ = json.NewEncoder(w).Encode(&review{APIVersion: "admission.k8s.io/v1beta1", Kind: "AdmissionReview", Response: &reviewResponse{UID: rv.Request.UID, Allowed: true}})
		}, code: 500, msg: failed + `received invalid webhook response: expected webhook response of admission\.k8s\.io/v1, Kind=AdmissionReview, got admission\.k8s\.io/v1beta1, Kind=AdmissionReview$`, ignored: true},
		{name: "no response", answer: raw(200, `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`),
			code: 500, msg: failed + `received invalid webhook response: webhook response was absent$`, ignored: true},
		{name: "garbage", answer: raw(200, `<html>`),
			code: 500, msg: failed + `failed to call webhook: couldn't get version/kind; json parse error: json: cannot unmarshal string into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }$`, ignored: true},
		{name: "no uid and no kind", answer: raw(200, `{"response":{}}`),
			code: 500, msg: failed + `received invalid webhook response: expected response.uid="[0-9a-f-]{36}", got ""$`, ignored: true},
		{name: "no kind", answer: func(w http.ResponseWriter, _ *http.Request, rv *review) {
			_, _ = w.Write([]byte(`{"response":{"allowed":true,"uid":"` + rv.Request.UID + `"}}`))
		}, code: 500, msg: failed + `received invalid webhook response: expected webhook response of admission\.k8s\.io/v1, Kind=AdmissionReview, got /, Kind=$`, ignored: true},
		{name: "server error", answer: raw(500, `boom`),
			code: 500, msg: failed + `failed to call webhook: an error on the server \("boom"\) has prevented the request from succeeding$`, ignored: true},
		{name: "status error", answer: raw(403, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"go away","code":403}`),
			code: 500, msg: failed + `failed to call webhook: go away$`, ignored: true},
		{name: "redirect followed", answer: func(w http.ResponseWriter, r *http.Request, rv *review) {
			if r.URL.Path != "/elsewhere" {
				http.Redirect(w, r, "/elsewhere", http.StatusTemporaryRedirect)
				return
			}
			allow(w, r, rv)
		}},
		{name: "redirect loop", answer: func(w http.ResponseWriter, r *http.Request, _ *review) {
			http.Redirect(w, r, "/elsewhere", http.StatusTemporaryRedirect)
		}, code: 500, msg: failed + `failed to call webhook: Post "/elsewhere": stopped after 10 redirects$`, ignored: true},
		{name: "huge body", answer: func(w http.ResponseWriter, _ *http.Request, _ *review) {
			_, _ = w.Write([]byte(strings.Repeat(" ", 1<<20)))
		}, code: 500, msg: failed + `failed to call webhook: the webhook's response is larger than 65536 bytes$`, ignored: true},
		{name: "hangs past its timeout", answer: func(w http.ResponseWriter, r *http.Request, _ *review) {
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
		}, code: 500, msg: failed + `failed to call webhook: Post "https://127\.0\.0\.1:\d+/(mutate|validate)\?timeout=1s": context deadline exceeded$`, ignored: true},
		{name: "validating webhook patches", answer: patchWith(`[]`),
			code: 500, msg: failed + `received invalid webhook response: validating webhook may not return response.patch$`, ignored: true},
		{name: "patch without type", mutating: true, answer: func(w http.ResponseWriter, _ *http.Request, rv *review) {
			respond(w, rv, reviewResponse{Allowed: true, Patch: []byte(`[]`)})
		}, code: 500, msg: failed + `received invalid webhook response: webhook returned response.patch but not response.patchType$`, ignored: true},
		{name: "undecodable patch", mutating: true, answer: patchWith(`{"op":"add"}`),
			code: 500, msg: failed + `received undecodable patch in webhook response: `, ignored: true},
		{name: "unsupported patch type", mutating: true, answer: func(w http.ResponseWriter, _ *http.Request, rv *review) {
			respond(w, rv, reviewResponse{Allowed: true, Patch: []byte(`[{"op":"add","path":"/x","value":1}]`), PatchType: ptr("MergePatch")})
		}, code: 500, msg: failed + `unsupported patch type "MergePatch"$`, ignored: true},
		{name: "patch that breaks the kind", mutating: true, answer: patchWith(`[{"op":"replace","path":"/spec/replicas","value":"many"}]`),
			code: 500, msg: `^Internal error occurred: json: cannot unmarshal string into Go struct field`},
		{name: "patch that does not apply", mutating: true, answer: patchWith(`[{"op":"remove","path":"/spec/nothing"}]`),
			code: 500, msg: `^Internal error occurred: `},
		{name: "patch on delete", mutating: true, op: admission.Delete, answer: patchWith(`[{"op":"add","path":"/x","value":1}]`),
			code: 500, msg: `^Internal error occurred: admission webhook "aw\.hook" attempted to modify the object, which is not supported for this operation$`},
		{name: "dry run, no side effects", dryRun: true, answer: allow},
		{name: "dry run, side effects", dryRun: true, side: ar.SideEffectClassSome, answer: allow,
			code: 400, msg: `^admission webhook "aw\.hook" does not support dry run$`},
		{name: "dry run, unknown side effects", mutating: true, dryRun: true, side: ar.SideEffectClassUnknown, answer: allow,
			code: 400, msg: `^admission webhook "aw\.hook" does not support dry run$`},
	} {
		for _, fp := range []ar.FailurePolicyType{ar.Fail, ar.Ignore} {
			t.Run(tc.name+"/"+string(fp), func(t *testing.T) {
				s := newServer(t, tc.answer)
				var cfg meta.Object
				side := ar.SideEffectClassNone
				if tc.side != "" {
					side = tc.side
				}
				if tc.mutating {
					h := mutatingHook("aw.hook", s, fp)
					h.TimeoutSeconds, h.SideEffects = ptr(int32(1)), &side
					cfg = mutatingConfig("aw-config", h)
				} else {
					h := validatingHook("aw.hook", s, fp)
					h.TimeoutSeconds, h.SideEffects = ptr(int32(1)), &side
					cfg = validatingConfig("aw-config", h)
				}
				p, _, _ := newPlugin(t, cfg)
				p.opts.MaxResponseBytes = 64 << 10
				op := admission.Create
				if tc.op != "" {
					op = tc.op
				}
				a := widgetRequest(op, "v1", nil)
				a.DryRun = tc.dryRun
				start := time.Now()
				var err error
				if tc.mutating {
					_, err = (&admission.Chain{Mutating: []admission.Func{p.Mutate}}).Mutate(context.Background(), a.Resource, nil, a)
				} else {
					err = admission.Run(context.Background(), a.Resource, a, []admission.Func{p.Validate})
				}
				if d := time.Since(start); d > 3*time.Second {
					t.Errorf("took %v, beyond the webhook's timeout", d)
				}
				code, msg := tc.code, tc.msg
				if fp == ar.Ignore && tc.ignored {
					code, msg = 0, ""
				}
				if code == 0 {
					if err != nil {
						t.Fatalf("refused: %v", err)
					}
					return
				}
				if got := status.CodeOf(err); got != code {
					t.Errorf("code %d, want %d (%v)", got, code, err)
				}
				if !regexp.MustCompile(msg).MatchString(errText(err)) {
					t.Errorf("message %q does not match %q", errText(err), msg)
				}
			})
		}
	}
}

// A mutating webhook's patch changes the object; the review carries
// every field kube fills.
func TestMutatePatchesAndReview(t *testing.T) {
	s := newServer(t, patchWith(`[{"op":"add","path":"/metadata/labels","value":{"patched":"yes"}},{"op":"replace","path":"/spec/replicas","value":3}]`))
	p, _, _ := newPlugin(t, mutatingConfig("aw-config", mutatingHook("aw.hook", s, ar.Fail)))
	a := widgetRequest(admission.Create, "v1", nil)
	a.DryRun = true
	a.User = &auth.User{Name: "alice", UID: "u-1", Groups: []string{"devs", "system:authenticated"}, Extra: map[string][]string{"scopes": {"a"}}}
	if err := p.Mutate(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	got := a.Object.(*typed)
	if got.Labels["patched"] != "yes" || got.Spec.Replicas != 3 {
		t.Errorf("object not patched: %+v", got)
	}
	rvs := s.reviews()
	if len(rvs) != 1 {
		t.Fatalf("%d calls", len(rvs))
	}
	req := rvs[0].Request
	if len(req.UID) != 36 {
		t.Errorf("uid %q", req.UID)
	}
	req.UID = ""
	want := &reviewRequest{
		Kind:            gvk{"stable.example.com", "v1", "Widget"},
		Resource:        gvr{"stable.example.com", "v1", "widgets"},
		RequestKind:     &gvk{"stable.example.com", "v1", "Widget"},
		RequestResource: &gvr{"stable.example.com", "v1", "widgets"},
		Name:            "aw-1",
		Namespace:       "aw-ns",
		Operation:       "CREATE",
		UserInfo:        userInfo{Username: "alice", UID: "u-1", Groups: []string{"devs", "system:authenticated"}, Extra: map[string][]string{"scopes": {"a"}}},
		Object:          json.RawMessage(`{"kind":"Widget","apiVersion":"stable.example.com/v1","metadata":{"name":"aw-1","namespace":"aw-ns"},"spec":{"replicas":1}}`),
		OldObject:       json.RawMessage(`null`),
		DryRun:          ptr(true),
		Options:         json.RawMessage(`{"kind":"CreateOptions","apiVersion":"meta.k8s.io/v1"}`),
	}
	if diff := cmp.Diff(want, req, cmp.Transformer("json", func(r json.RawMessage) string { return string(r) })); diff != "" {
		t.Errorf("review (-want +got):\n%s", diff)
	}
	if rvs[0].APIVersion != "admission.k8s.io/v1" || rvs[0].Kind != "AdmissionReview" {
		t.Errorf("review is %s %s", rvs[0].APIVersion, rvs[0].Kind)
	}
	if p := s.paths[0]; p != "/mutate?timeout=2s" {
		t.Errorf("path %q", p)
	}
}
