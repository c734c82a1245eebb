package admissionregistrationv1_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/kinds/admissionregistrationv1"
)

// Serve the admission configurations; a webhook created with only what it
// must state comes back with kube-apiserver's defaults.
func Example() {
	srv := apiserver.New(apiserver.Options{})
	defer srv.Close()
	for _, k := range admissionregistrationv1.Kinds(admissionregistrationv1.Options{}) {
		srv.Register(k)
	}
	if err := srv.Err(); err != nil {
		panic(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	resp, err := http.Post(ts.URL+"/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", "application/json",
		strings.NewReader(`{"metadata":{"name":"policy"},"webhooks":[{"name":"check.example.com",
		"clientConfig":{"service":{"namespace":"hooks","name":"check"}},"sideEffects":"None","admissionReviewVersions":["v1"]}]}`))
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.StatusCode)
	for _, d := range []string{`"port":443`, `"failurePolicy":"Fail"`, `"matchPolicy":"Equivalent"`, `"timeoutSeconds":10`} {
		fmt.Println(d, strings.Contains(string(body), d))
	}
	// Output:
	// 201
	// "port":443 true
	// "failurePolicy":"Fail" true
	// "matchPolicy":"Equivalent" true
	// "timeoutSeconds":10 true
}
