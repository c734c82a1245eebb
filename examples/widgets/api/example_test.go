package api_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/cel"
	"github.com/kapi-dev/kapi/examples/widgets/api"
)

// Register the example kinds with a server and create a Widget: the
// schema's defaults (replicas 1, port protocol TCP) appear in the answer.
func Example() {
	rules, err := cel.New(cel.Options{})
	if err != nil {
		panic(err)
	}
	srv := apiserver.New(apiserver.Options{RuleEngine: rules})
	sprocket, err := api.SprocketKind()
	if err != nil {
		panic(err)
	}
	srv.Register(api.WidgetKind()).Register(api.GadgetKind()).Register(sprocket)
	if err := srv.Err(); err != nil {
		panic(err)
	}
	defer srv.Close()
	ts := httptest.NewServer(srv)
	defer ts.Close()

	resp, err := http.Post(ts.URL+"/apis/stable.example.com/v1/namespaces/default/widgets", "application/json",
		strings.NewReader(`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{"color":"red","ports":[{"name":"http","port":80}]}}`))
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.Status)
	i := strings.Index(string(body), `"spec"`)
	fmt.Println(strings.TrimSuffix(strings.TrimSpace(string(body[i:])), "}")) // spec comes last: no status yet
	// Output:
	// 201 Created
	// "spec":{"replicas":1,"color":"red","ports":[{"name":"http","port":80,"protocol":"TCP"}]}
}
