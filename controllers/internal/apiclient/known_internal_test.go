package apiclient

import (
	"slices"
	"testing"

	"github.com/kapi-dev/kapi/meta"
)

// fakeKnown is a Known that a test fills: uid → resourceVersion.
type fakeKnown map[string]int64

func (k fakeKnown) Version(uid string) (int64, bool) {
	rv, ok := k[uid]
	return rv, ok
}

func (k fakeKnown) Each(fn func(uid string, rv int64, namespace, name string)) {
	for uid, rv := range k {
		fn(uid, rv, "ns", uid)
	}
}

// TestReflectorAsksTheGivenKnown: a Reflector given a Known keeps no
// objects of its own and tells changes apart by what that Known says:
// older states are dropped, newer ones are modifications, unknown uids
// additions.
func TestReflectorAsksTheGivenKnown(t *testing.T) {
	for _, tc := range []struct {
		name string
		ev   Event
		want []string // the handler's calls
	}{
		{"older than known", event("ADDED", "u", "5"), nil},
		{"same as known", event("MODIFIED", "u", "10"), nil},
		{"newer than known", event("ADDED", "u", "12"), []string{"MODIFIED u"}},
		{"unknown uid", event("MODIFIED", "v", "3"), []string{"ADDED v"}},
		{"deletion", event("DELETED", "u", "11"), []string{"DELETED u"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			h := func(typ string, obj *Object) { got = append(got, typ+" "+obj.Metadata.UID) }
			r := (&Client{}).NewReflector("/p", h, fakeKnown{"u": 10})
			r.deliver(tc.ev)
			if !slices.Equal(got, tc.want) {
				t.Errorf("handler calls %q, want %q", got, tc.want)
			}
			if r.own != nil {
				t.Errorf("the Reflector keeps %d objects of its own", len(r.own))
			}
		})
	}
}

// TestReflectorKeepsWhatItDelivered: without a Known, a Reflector keeps
// each object's resourceVersion, namespace and name by uid, and forgets
// it at its deletion.
func TestReflectorKeepsWhatItDelivered(t *testing.T) {
	r := (&Client{}).NewReflector("/p", func(string, *Object) {}, nil)
	r.deliver(event("ADDED", "u", "7"))
	if rv, ok := r.known.Version("u"); !ok || rv != 7 {
		t.Fatalf("Version(u) = %d, %v; want 7, true", rv, ok)
	}
	var each []string
	r.known.Each(func(uid string, rv int64, namespace, name string) { each = append(each, uid+" "+namespace+"/"+name) })
	if want := []string{"u ns/name-u"}; !slices.Equal(each, want) {
		t.Errorf("Each gave %q, want %q", each, want)
	}
	r.deliver(event("DELETED", "u", "8"))
	if _, ok := r.known.Version("u"); ok {
		t.Error("a deleted object is still known")
	}
}

func event(typ, uid, rv string) Event {
	return Event{Type: typ, Object: Object{Metadata: meta.ObjectMeta{Namespace: "ns", Name: "name-" + uid, UID: uid, ResourceVersion: rv}}}
}
