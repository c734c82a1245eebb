package webhook

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/apiserver/admission"
	ar "github.com/kapi-dev/kapi/kinds/admissionregistrationv1"
	"github.com/kapi-dev/kapi/status"
)

// A webhook reached through a Service is called at the resolved address
// with the Service's path, and its certificate is checked for
// NAME.NAMESPACE.svc: httptest's certificate is for example.com only, so
// the call is seen to fail for that name.
func TestServiceReference(t *testing.T) {
	s := newServer(t, allow)
	u, _ := url.Parse(s.URL)
	var resolved []string
	resolve := func(_ context.Context, ns, name string, port int32) (string, error) {
		resolved = append(resolved, ns+"/"+name+":"+itoa32(port))
		return u.Host, nil
	}
	h := validatingHook("aw.hook", s, ar.Fail)
	h.ClientConfig = ar.WebhookClientConfig{Service: &ar.ServiceReference{Namespace: "aw-ns", Name: "aw-hook", Path: ptr("/check"), Port: ptr(int32(8443))}, CABundle: s.ca}
	p, _, _ := newPlugin(t, validatingConfig("aw", h))
	p.clients.resolve = resolve
	err := p.Validate(context.Background(), widgetRequest(admission.Create, "v1", nil))
	if diff := cmp.Diff([]string{"aw-ns/aw-hook:8443"}, resolved); diff != "" {
		t.Errorf("resolved (-want +got):\n%s", diff)
	}
	const want = `failed to call webhook: Post "https://aw-hook.aw-ns.svc:8443/check?timeout=2s": tls: failed to verify certificate: x509: certificate is valid for example.com, *.example.com, not aw-hook.aw-ns.svc`
	if !containsStr(errText(err), want) {
		t.Errorf("error %q does not say %q", errText(err), want)
	}
	if n := len(s.reviews()); n != 0 {
		t.Errorf("called %d times despite the name", n)
	}
}

// A webhook's timeout never outlives the request's own deadline; when
// the request ran out of time, a mutating webhook failing open still
// ends it with kube's 504, a validating one lets it through.
func TestRequestDeadline(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, _ *review) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	})
	for _, tc := range []struct {
		name     string
		mutating bool
		fp       ar.FailurePolicyType
		code     int32
	}{
		{"mutating, Fail", true, ar.Fail, 500},
		{"mutating, Ignore", true, ar.Ignore, 504},
		{"validating, Fail", false, ar.Fail, 500},
		{"validating, Ignore", false, ar.Ignore, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p *Plugin
			if tc.mutating {
				h := mutatingHook("aw.hook", s, tc.fp)
				h.TimeoutSeconds = ptr(int32(30))
				p, _, _ = newPlugin(t, mutatingConfig("aw", h))
			} else {
				h := validatingHook("aw.hook", s, tc.fp)
				h.TimeoutSeconds = ptr(int32(30))
				p, _, _ = newPlugin(t, validatingConfig("aw", h))
			}
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			a := widgetRequest(admission.Create, "v1", nil)
			start := time.Now()
			var err error
			if tc.mutating {
				err = p.Mutate(ctx, a)
			} else {
				err = p.Validate(ctx, a)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("took %v past a 300ms deadline", d)
			}
			if got := status.CodeOf(err); got != tc.code && !(tc.code == 0 && err == nil) {
				t.Errorf("code %d, want %d: %v", got, tc.code, err)
			}
			if tc.code == 504 && errText(err) != "Timeout: request did not complete within requested timeout" {
				t.Errorf("message %q", errText(err))
			}
		})
	}
	if p := s.reviews(); len(p) > 0 && !containsStr(s.paths[0], "?timeout=1s") {
		t.Errorf("the webhook was told %q, not the request's remaining second", s.paths[0])
	}
}

// observation is one metric call.
type observation struct {
	Kind, Name, Step, Op, Error string
	Rejected                    bool
	Code                        int
}

type recorder struct {
	mu  sync.Mutex
	got []observation
}

func (r *recorder) ObserveWebhook(_ context.Context, name, step, op string, rejected bool, code int, _ time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, observation{Kind: "webhook", Name: name, Step: step, Op: op, Rejected: rejected, Code: code})
}

func (r *recorder) ObserveWebhookRejection(_ context.Context, name, step, op string, t RejectionType, code int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, observation{Kind: "rejection", Name: name, Step: step, Op: op, Error: string(t), Code: code})
}

func (r *recorder) ObserveWebhookFailOpen(_ context.Context, name, step string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, observation{Kind: "failopen", Name: name, Step: step})
}

// Metrics are reported as kube's dispatchers report them: a denial is a
// rejection without error, a failed call one with calling_webhook_error
// unless it fails open, which is counted as such.
func TestMetrics(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, rv *review) {
		switch r.URL.Path {
		case "/deny":
			respond(w, rv, reviewResponse{Result: nil})
		case "/broken":
			w.WriteHeader(500)
		default:
			allow(w, r, rv)
		}
	})
	at := func(h ar.MutatingWebhook, path string) ar.MutatingWebhook {
		h.ClientConfig.URL = ptr(s.URL + path)
		return h
	}
	for _, tc := range []struct {
		name string
		hook ar.MutatingWebhook
		want []observation
	}{
		{"allowed", at(mutatingHook("ok.aw", s, ar.Fail), "/ok"),
			[]observation{{Kind: "webhook", Name: "ok.aw", Step: "admit", Op: "CREATE", Code: 200}}},
		{"denied", at(mutatingHook("deny.aw", s, ar.Fail), "/deny"),
			[]observation{{Kind: "rejection", Name: "deny.aw", Step: "admit", Op: "CREATE", Error: "no_error", Code: 400},
				{Kind: "webhook", Name: "deny.aw", Step: "admit", Op: "CREATE", Rejected: true, Code: 400}}},
		{"failing closed", at(mutatingHook("broken.aw", s, ar.Fail), "/broken"),
			[]observation{{Kind: "rejection", Name: "broken.aw", Step: "admit", Op: "CREATE", Error: "calling_webhook_error", Code: 500},
				{Kind: "webhook", Name: "broken.aw", Step: "admit", Op: "CREATE", Rejected: true, Code: 500}}},
		{"failing open", at(mutatingHook("broken.aw", s, ar.Ignore), "/broken"),
			[]observation{{Kind: "webhook", Name: "broken.aw", Step: "admit", Op: "CREATE", Code: 500},
				{Kind: "failopen", Name: "broken.aw", Step: "admit"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var rec recorder
			p, _, _ := newPlugin(t, mutatingConfig("aw", tc.hook))
			p.opts.Observer = &rec
			_ = p.Mutate(context.Background(), widgetRequest(admission.Create, "v1", nil))
			if diff := cmp.Diff(tc.want, rec.got); diff != "" {
				t.Errorf("observations (-want +got):\n%s", diff)
			}
		})
	}
}

func containsStr(s, sub string) bool { return strings.Contains(s, sub) }

func itoa32(n int32) string { return strconv.Itoa(int(n)) }
