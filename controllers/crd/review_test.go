package crd_test

import (
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
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
// converts each object in a ConversionReview of its own, as
// kube-apiserver sends them (never a list's objects together), and
// keeps them converted for the reads that follow.
func TestConversionReviewPerObject(t *testing.T) {
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
	// Lists are served from the watch cache once it holds the last
	// create: resourceVersion=0 alone may answer before it does.
	atLast := "?resourceVersionMatch=NotOlderThan&resourceVersion=" + last.Metadata.ResourceVersion
	tests := []struct {
		name, path, accept string
		objects            int   // the objects answered in JSON
		reviews            []int // the objects in each review sent
	}{
		{"json list", beta + atLast, "application/json", n, []int{1, 1, 1, 1, 1}},
		{"again, converted already", beta + atLast, "application/json", n, nil},
		{"table", beta + atLast, "application/json;as=Table;v=v1;g=meta.k8s.io", 0, nil},
		{"yaml", beta + atLast, "application/yaml", 0, nil},
		{"one object", beta + "/ca", "application/json", 1, nil},
	}
	for _, tc := range tests {
		code, b := e.get(t, tc.path, tc.accept)
		if code != http.StatusOK || tc.objects > 0 && strings.Count(b, `"cron":"* * * * *"`) != tc.objects {
			t.Fatalf("%s: %d %s", tc.name, code, b)
		}
		mu.Lock()
		got := sizes
		sizes = nil
		mu.Unlock()
		if !slices.Equal(got, tc.reviews) {
			t.Errorf("%s: reviews of %v objects, want %v", tc.name, got, tc.reviews)
		}
	}
}
