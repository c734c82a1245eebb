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
	return serveKinds(t, apiserver.Options{}, k)
}
