package apiserver_test

import (
	"testing"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/meta"
)

// TestServerSchema checks Schema gives a served resource's schema in its
// version (the declared one, or the one built from the Go type) and
// nothing for a resource or version not served.
func TestServerSchema(t *testing.T) {
	srv := apiserver.New(apiserver.Options{})
	srv.Register(cogKind(t))
	srv.Register(apiserver.Kind{Group: "typed.example.com", Version: "v1", Kind: "Thing", Resource: "things",
		New: func() meta.Object { return &meta.Unstructured{} }})
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	if s, ok := srv.Schema("dyn.example.com", "v1", "cogs"); !ok || s == nil || s.Properties["spec"] == nil {
		t.Errorf("cogs: %v %v", s, ok)
	}
	if s, ok := srv.Schema("typed.example.com", "v1", "things"); !ok || s == nil {
		t.Errorf("things: %v %v", s, ok)
	}
	for _, gvr := range [][3]string{{"dyn.example.com", "v2", "cogs"}, {"dyn.example.com", "v1", "gears"}} {
		if s, ok := srv.Schema(gvr[0], gvr[1], gvr[2]); ok || s != nil {
			t.Errorf("%v: %v %v", gvr, s, ok)
		}
	}
}
