package crd_test

import (
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kapi-dev/kapi/controllers/crd"
	"github.com/kapi-dev/kapi/kinds/apiextensionsv1"
	"github.com/kapi-dev/kapi/meta"
)

// The ConversionReview version sent is the first of
// conversionReviewVersions that is v1 or v1beta1, as kube-apiserver
// picks it; a definition naming neither is refused.
func TestConversionReviewVersions(t *testing.T) {
	tests := []struct {
		name     string
		versions []string
		want     string // the review's apiVersion; "" when refused
	}{
		{"v1", []string{"v1"}, "apiextensions.k8s.io/v1"},
		{"v1beta1", []string{"v1beta1"}, "apiextensions.k8s.io/v1beta1"},
		{"first known", []string{"v2", "v1beta1", "v1"}, "apiextensions.k8s.io/v1beta1"},
		{"none known", []string{"v2"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int64
			var mu sync.Mutex
			seen := map[string]bool{}
			conv := converter(&calls)
			hook := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				var tm meta.TypeMeta
				_ = json.Unmarshal(b, &tm)
				mu.Lock()
				seen[tm.APIVersion] = true
				mu.Unlock()
				r.Body = io.NopCloser(strings.NewReader(string(b)))
				conv(w, r)
			}))
			defer hook.Close()
			e := start(t)
			d := manifest(t, twoVersionCRD)
			url := hook.URL
			d.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: "Webhook", Webhook: &apiextensionsv1.WebhookConversion{
				ConversionReviewVersions: tc.versions,
				ClientConfig: &apiextensionsv1.WebhookClientConfig{URL: &url,
					CABundle: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hook.Certificate().Raw})},
			}}
			err := crd.Create(ctx(t), e.srv, d)
			if tc.want == "" {
				if err == nil || !strings.Contains(err.Error(), "spec.conversion.conversionReviewVersions: Invalid value: [\"v2\"]: must include at least one of v1, v1beta1") {
					t.Fatalf("created, or refused otherwise: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			code, body := e.do(t, "POST", "/apis/stable.example.com/v1beta1/namespaces/default/crontabs", "application/json",
				`{"apiVersion":"stable.example.com/v1beta1","kind":"CronTab","metadata":{"name":"a"},"spec":{"cron":"* * * * *"}}`)
			if code != http.StatusCreated || !strings.Contains(body, `"cron":"* * * * *"`) {
				t.Fatalf("create through v1beta1: %d %s", code, body)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(seen) != 1 || !seen[tc.want] {
				t.Errorf("reviews sent in %v, want %s", seen, tc.want)
			}
		})
	}
}

// A list read in another version than its objects are stored in
// converts them in one ConversionReview, and keeps them converted for
// the lists that follow.
func TestConversionReviewPerList(t *testing.T) {
	var calls atomic.Int64
	var mu sync.Mutex
	var sizes []int
	conv := converter(&calls)
	hook := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var review struct {
			Request struct{ Objects []json.RawMessage }
		}
		_ = json.Unmarshal(b, &review)
		mu.Lock()
		sizes = append(sizes, len(review.Request.Objects))
		mu.Unlock()
		r.Body = io.NopCloser(strings.NewReader(string(b)))
		conv(w, r)
	}))
	defer hook.Close()
	e := start(t)
	d := manifest(t, twoVersionCRD)
	url := hook.URL
	d.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: "Webhook", Webhook: &apiextensionsv1.WebhookConversion{
		ConversionReviewVersions: []string{"v1"},
		ClientConfig: &apiextensionsv1.WebhookClientConfig{URL: &url,
			CABundle: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hook.Certificate().Raw})},
	}}
	if err := crd.Create(ctx(t), e.srv, d); err != nil {
		t.Fatal(err)
	}
	const n = 5
	var last struct {
		Metadata struct{ ResourceVersion string }
	}
	for i := range n {
		body := `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"c` + string(rune('a'+i)) + `"},"spec":{"cronSpec":"* * * * *"}}`
		code, out := e.do(t, "POST", crontabs, "application/json", body)
		if code != http.StatusCreated {
			t.Fatalf("create: %d %s", code, out)
		}
		if err := json.Unmarshal([]byte(out), &last); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	sizes = nil
	mu.Unlock()
	const beta = "/apis/stable.example.com/v1beta1/namespaces/default/crontabs"
	tests := []struct {
		name, accept string
		reviews      []int // the objects in each review sent
	}{
		{"json list", "application/json", []int{n}},
		{"again, converted already", "application/json", nil},
		{"table", "application/json;as=Table;v=v1;g=meta.k8s.io", nil},
	}
	for _, tc := range tests {
		// Served from the watch cache, once it holds the last create:
		// resourceVersion=0 alone may answer before it does.
		req, _ := http.NewRequest("GET", e.ts.URL+beta+"?resourceVersionMatch=NotOlderThan&resourceVersion="+last.Metadata.ResourceVersion, nil)
		req.Header.Set("Accept", tc.accept)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || strings.Count(string(b), `"cron":"* * * * *"`) != n && tc.accept == "application/json" {
			t.Fatalf("%s: %d %s", tc.name, resp.StatusCode, b)
		}
		mu.Lock()
		got := sizes
		sizes = nil
		mu.Unlock()
		if len(got) != len(tc.reviews) || len(got) > 0 && got[0] != tc.reviews[0] {
			t.Errorf("%s: reviews of %v objects, want %v", tc.name, got, tc.reviews)
		}
	}
}
