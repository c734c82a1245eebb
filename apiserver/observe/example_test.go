package observe_test

import (
	"fmt"
	"net/http/httptest"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/apiserver/observe"
)

// lastRequest is an Observer that remembers the last finished request.
type lastRequest struct{ rec observe.RequestRecord }

func (o *lastRequest) ObserveRequest(rec *observe.RequestRecord)      { o.rec = *rec }
func (*lastRequest) ObserveInflight(string, int)                      {}
func (*lastRequest) ObserveLongRunning(*observe.RequestLabels, int)   {}
func (*lastRequest) ObserveWatchers(string, string, string, int)      {}
func (*lastRequest) ObserveWatchEvent(string, string, string, int)    {}
func (*lastRequest) ObserveConsistentRead(string, string, bool, bool) {}
func (*lastRequest) ObserveResources(func() []observe.ResourceStats)  {}

// An Observer sees every finished request with kube-apiserver's labels.
func ExampleObserver() {
	o := new(lastRequest)
	srv := apiserver.New(apiserver.Options{Observer: o})
	srv.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/apis", nil))
	fmt.Println(o.rec.Verb, o.rec.Code, o.rec.Component)
	// Output: GET 200 apiserver
}
