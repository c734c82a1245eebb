package webhook

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A webhook's path reaches its server joined as client-go joins it,
// as kube-apiserver sends it: doubled and trailing slashes go, an empty
// path is "/".
func TestPostPath(t *testing.T) {
	var got []string
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.URL.Path)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{}`))
	}))
	defer ts.Close()
	for _, p := range []string{"//mutate-widget", "/validate/", ""} {
		u, err := url.Parse(ts.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		var out map[string]any
		if err := post(context.Background(), ts.Client(), u, []byte(`{}`), 1<<20, &out); err != nil {
			t.Fatalf("%q: %v", p, err)
		}
	}
	if diff := cmp.Diff([]string{"/mutate-widget", "/validate", "/"}, got); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
}
