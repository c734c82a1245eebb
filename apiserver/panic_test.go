package apiserver_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/meta"
)

func newPanickyServer(t testing.TB) *httptest.Server {
	k := widgetKind()
	k.Default = func(context.Context, meta.Object) { panic("defaulting bug") }
	srv := apiserver.New(apiserver.Options{})
	srv.Register(k)
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return ts
}
