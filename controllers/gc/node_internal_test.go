package gc

import (
	"fmt"
	"slices"
	"testing"
	"unsafe"

	"github.com/kapi-dev/kapi/controllers/internal/apiclient"
	"github.com/kapi-dev/kapi/meta"
)

// TestNodeIsSmall: the collector keeps a node per object it mirrors, so
// a node fits the allocator's 80-byte class, and its resourceVersion,
// kept as a number, and its owners read back as the server wrote them.
func TestNodeIsSmall(t *testing.T) {
	if size := unsafe.Sizeof(node{}); size > 80 {
		t.Errorf("a node takes %d bytes, want at most 80", size)
	}
	obj := &apiclient.Object{Metadata: meta.ObjectMeta{Name: "a", Namespace: "ns", UID: "u", ResourceVersion: "1234"}}
	if n := newNode(&apiclient.Resource{}, obj); n.rv != 1234 || n.ownerRefs() != nil {
		t.Errorf("rv = %d, owners %v; want 1234 and none", n.rv, n.ownerRefs())
	}
	owners := []meta.OwnerReference{{Kind: "A", Name: "a", UID: "1"}, {Kind: "B", Name: "b", UID: "2"}}
	obj.Metadata.OwnerReferences = owners
	if n := newNode(&apiclient.Resource{}, obj); !slices.Equal(n.ownerRefs(), owners) {
		t.Errorf("owners %v, want %v", n.ownerRefs(), owners)
	}
}

// TestGraphIsTheMirrorsKnown: what a mirror's Reflector knows is the
// graph's nodes of its own resource (a node of another resource, or of
// an earlier mirror of the same one, is unknown to it), and the nodes of
// one namespace share the namespace's name.
func TestGraphIsTheMirrorsKnown(t *testing.T) {
	widgets, gadgets := &apiclient.Resource{Resource: "widgets"}, &apiclient.Resource{Resource: "gadgets"}
	g := newGraph()
	put := func(res *apiclient.Resource, uid, ns, name, rv string) *node {
		n := newNode(res, &apiclient.Object{Metadata: meta.ObjectMeta{UID: uid, Namespace: string([]byte(ns)), Name: name, ResourceVersion: rv}})
		g.put(n, uid)
		return n
	}
	a := put(widgets, "a", "ns", "wa", "3")
	b := put(widgets, "b", "ns", "wb", "4")
	put(gadgets, "c", "", "gc", "5")
	for _, tc := range []struct {
		name string
		res  *apiclient.Resource
		uid  string
		rv   int64
		ok   bool
	}{
		{"own node", widgets, "a", 3, true},
		{"another resource's node", gadgets, "a", 0, false},
		{"an earlier mirror's node", &apiclient.Resource{Resource: "widgets"}, "a", 0, false},
		{"no node", widgets, "z", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if rv, ok := g.knownOf(tc.res).Version(tc.uid); rv != tc.rv || ok != tc.ok {
				t.Errorf("Version(%s) = %d, %v; want %d, %v", tc.uid, rv, ok, tc.rv, tc.ok)
			}
		})
	}
	var each []string
	g.knownOf(widgets).Each(func(uid string, rv int64, namespace, name string) {
		each = append(each, fmt.Sprintf("%s %d %s/%s", uid, rv, namespace, name))
	})
	slices.Sort(each)
	if want := []string{"a 3 ns/wa", "b 4 ns/wb"}; !slices.Equal(each, want) {
		t.Errorf("Each gave %q, want %q", each, want)
	}
	if unsafe.StringData(a.namespace) != unsafe.StringData(b.namespace) {
		t.Error("two nodes of one namespace keep two copies of its name")
	}
}

// TestUIDs: a uid in a UUID's canonical text is kept as its 16 bytes and
// reads back as that text; any other text (other variants, capitals, not
// a UUID) is a uid of its own, apart from every UUID's, whose text the
// graph gives back while it holds the node.
func TestUIDs(t *testing.T) {
	const v4 = "0f8fad5b-d9cb-469f-a165-70867728950e"
	for _, tc := range []struct {
		name, text string
		parsed     bool
	}{
		{"version 4", v4, true},
		{"other version", "6ba7b810-9dad-11d1-80b4-00c04fd430c8", true},
		{"capitals", "0F8FAD5B-D9CB-469F-A165-70867728950E", false},
		{"variant 110", "0f8fad5b-d9cb-469f-c165-70867728950e", false},
		{"no dashes", "0f8fad5bd9cb469fa16570867728950e", false},
		{"short", "0f8fad5b-d9cb-469f-a165-70867728950", false},
		{"dash misplaced", "0f8fad5b-d9cb-469f-a16-570867728950e", false},
		{"anything", "u", false},
		{"empty", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := uidOf(tc.text)
			if u.parsed() != tc.parsed {
				t.Fatalf("parsed = %v, want %v", u.parsed(), tc.parsed)
			}
			if tc.parsed && u.uuidText() != tc.text {
				t.Errorf("reads back as %q", u.uuidText())
			}
			if !tc.parsed && u == uidOf(v4) {
				t.Error("the same uid as a UUID's")
			}
			g := newGraph()
			n := newNode(&apiclient.Resource{}, &apiclient.Object{Metadata: meta.ObjectMeta{UID: tc.text, Name: "a"}})
			g.put(n, tc.text)
			if got := g.text(n.uid); got != tc.text {
				t.Errorf("the graph gives the text %q", got)
			}
			g.remove(n.uid)
			if got := g.text(n.uid); !tc.parsed && got != "" {
				t.Errorf("the text %q outlives the node", got)
			}
		})
	}
}
