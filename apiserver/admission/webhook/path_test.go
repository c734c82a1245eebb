package webhook

import (
	"testing"

	ar "github.com/kapi-dev/kapi/kinds/admissionregistrationv1"
)

// A webhook is called at its path joined onto "/", as kube's REST client
// calls it: controller-runtime's envtest writes a Service path "/x" into
// https://HOST:PORT//x, which kube calls as /x.
func TestEndpointPath(t *testing.T) {
	cases := []struct {
		name string
		cc   ar.WebhookClientConfig
		want string
	}{
		{"url with a doubled slash", ar.WebhookClientConfig{URL: ptr("https://127.0.0.1:9443//mutate-stable-example-com-v1-widget")},
			"https://127.0.0.1:9443/mutate-stable-example-com-v1-widget"},
		{"url with a trailing slash", ar.WebhookClientConfig{URL: ptr("https://127.0.0.1:9443/a/b/")}, "https://127.0.0.1:9443/a/b"},
		{"url without a path", ar.WebhookClientConfig{URL: ptr("https://127.0.0.1:9443")}, "https://127.0.0.1:9443/"},
		{"url with dot segments", ar.WebhookClientConfig{URL: ptr("https://127.0.0.1:9443/a/./b/../c")}, "https://127.0.0.1:9443/a/c"},
		{"service without a path", ar.WebhookClientConfig{Service: &ar.ServiceReference{Namespace: "ns", Name: "svc"}},
			"https://svc.ns.svc:443/"},
		{"service path without a leading slash", ar.WebhookClientConfig{Service: &ar.ServiceReference{Namespace: "ns", Name: "svc", Path: ptr("validate")}},
			"https://svc.ns.svc:443/validate"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			u, _, err := endpoint(&tc.cc)
			if err != nil {
				t.Fatal(err)
			}
			if got := u.String(); got != tc.want {
				t.Errorf("endpoint = %s, want %s", got, tc.want)
			}
		})
	}
}
