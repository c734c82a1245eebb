package gc_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/controllers/gc"
	"github.com/kapi-dev/kapi/kinds/corev1"
)

// Run the collector next to the server: a ConfigMap owned by another is
// deleted once its owner is.
func Example() {
	srv := apiserver.New(apiserver.Options{}).Register(corev1.ConfigMapKind())
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = gc.New(srv, gc.Options{}).Run(ctx) }()
	ts := httptest.NewServer(srv)
	defer ts.Close()
	post := func(body string) string {
		resp, err := http.Post(ts.URL+"/api/v1/namespaces/default/configmaps", "application/json", strings.NewReader(body))
		if err != nil {
			panic(err)
		}
		defer resp.Body.Close()
		var out struct{ Metadata struct{ UID string } }
		_ = decode(resp, &out)
		return out.Metadata.UID
	}
	uid := post(`{"metadata":{"name":"owner"}}`)
	post(`{"metadata":{"name":"dependent","ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"owner","uid":"` + uid + `"}]}}`)
	req, _ := http.NewRequest(http.MethodDelete, ts.URL+"/api/v1/namespaces/default/configmaps/owner", nil)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
	for range 200 {
		resp, err := http.Get(ts.URL + "/api/v1/namespaces/default/configmaps/dependent")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusNotFound {
				fmt.Println("dependent collected")
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Output: dependent collected
}
