package apiclient

import (
	"testing"
	"unsafe"

	"github.com/kapi-dev/kapi/meta"
)

// TestReflectorSharesKeyBytes: the object a Reflector hands its handler
// has its namespace and name in the bytes of the key the Reflector keeps,
// so that a handler that keeps them holds no second copy.
func TestReflectorSharesKeyBytes(t *testing.T) {
	for _, tc := range []struct{ name, ns string }{{"namespaced", "ns"}, {"cluster-scoped", ""}} {
		t.Run(tc.name, func(t *testing.T) {
			var got *Object
			r := &Reflector{known: map[string]known{}, handler: func(_ string, obj *Object) { got = obj }}
			r.deliver(Event{Type: "ADDED", Object: Object{Metadata: meta.ObjectMeta{Namespace: tc.ns, Name: "a", UID: "u", ResourceVersion: "5"}}})
			if got == nil || got.Metadata.Namespace != tc.ns || got.Metadata.Name != "a" {
				t.Fatalf("handler got %+v", got)
			}
			for k := range r.known {
				name := unsafe.StringData(got.Metadata.Name)
				if base := unsafe.StringData(k); name != (*byte)(unsafe.Add(unsafe.Pointer(base), len(tc.ns)+1)) {
					t.Errorf("the name is not in the bytes of the key %q", k)
				}
			}
		})
	}
}
