package corev1_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/kinds/corev1"
)

// The ConfigMap kind is served under /api/v1, as kube-apiserver serves it.
func Example() {
	s := apiserver.New(apiserver.Options{}).Register(corev1.ConfigMapKind())
	if err := s.Err(); err != nil {
		panic(err)
	}
	defer s.Close()
	ts := httptest.NewServer(s)
	defer ts.Close()
	resp, err := http.Post(ts.URL+"/api/v1/namespaces/default/configmaps", "application/json",
		strings.NewReader(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings"},"data":{"color":"blue"}}`))
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	resp, err = http.Get(ts.URL + "/api/v1/namespaces/default/configmaps/settings")
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.StatusCode, strings.Contains(string(body), `"data":{"color":"blue"}`))
	// Output: 200 true
}
