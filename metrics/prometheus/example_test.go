package prometheus_test

import (
	"fmt"
	"net/http"

	prom "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/kapi-dev/kapi/apiserver"
	kapiprom "github.com/kapi-dev/kapi/metrics/prometheus"
)

// A host registers kapi's metrics on its own registry and serves it.
func ExampleNew() {
	reg := prom.NewRegistry()
	m, err := kapiprom.New(reg)
	if err != nil {
		panic(err)
	}
	srv := apiserver.New(apiserver.Options{Observer: m})
	defer srv.Close()
	mux := http.NewServeMux()
	mux.Handle("/", srv)
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))

	fams, _ := reg.Gather()
	fmt.Println(len(fams) > 0)
	// Output: true
}
