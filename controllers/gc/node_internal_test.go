package gc

import (
	"testing"
	"unsafe"

	"github.com/kapi-dev/kapi/controllers/internal/apiclient"
	"github.com/kapi-dev/kapi/meta"
)

// TestNodeIsSmall: the collector keeps a node per object it mirrors, so
// a node fits the allocator's 96-byte class, and its resourceVersion,
// kept as a number, reads back as the server wrote it.
func TestNodeIsSmall(t *testing.T) {
	if size := unsafe.Sizeof(node{}); size > 96 {
		t.Errorf("a node takes %d bytes, want at most 96", size)
	}
	obj := &apiclient.Object{Metadata: meta.ObjectMeta{Name: "a", Namespace: "ns", UID: "u", ResourceVersion: "1234"}}
	if n := newNode(&apiclient.Resource{}, obj); n.rv != 1234 {
		t.Errorf("rv = %d, want 1234", n.rv)
	}
}
