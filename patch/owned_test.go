package patch_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/patch"
)

// widgetState is a Widget drawn from small domains, so that random writes
// often set a field to the value it has, change fields their writer
// already owns, or fields another manager owns.
type widgetState struct {
	slots map[string]any // rendered by path: see render
}

// widgetSlots are the places a random write changes, with the values
// each can take (nil: absent).
var widgetSlots = []struct {
	path   []string
	values []any
}{
	{[]string{"metadata", "labels", "a"}, []any{nil, "1", "2"}},
	{[]string{"metadata", "labels", "b"}, []any{nil, "1"}},
	{[]string{"metadata", "annotations", "x"}, []any{nil, "1", "2"}},
	{[]string{"spec", "replicas"}, []any{nil, 1, 2, 3}},
	{[]string{"spec", "color"}, []any{nil, "red", "blue"}},
	{[]string{"spec", "size"}, []any{nil, "s", "l"}},
	{[]string{"spec", "tags"}, []any{nil, []any{}, []any{"t1"}, []any{"t1", "t2"}, []any{"t3", "t1"}}},
	{[]string{"spec", "ports"}, []any{nil, []any{}, ports("http"), ports("http", "https"), ports("https", "grpc")}},
	{[]string{"spec", "ports", "*", "port"}, []any{80, 81}},
	{[]string{"spec", "ports", "*", "protocol"}, []any{nil, "TCP", "UDP"}},
	{[]string{"status", "readyReplicas"}, []any{nil, 1, 2}},
	{[]string{"status", "conditions"}, []any{nil, conditions("Ready"), conditions("Ready", "Synced")}},
	{[]string{"status", "conditions", "*", "status"}, []any{"True", "False"}},
	{[]string{"status", "conditions", "*", "reason"}, []any{nil, "Fine"}},
}

func ports(names ...string) []any {
	out := make([]any, len(names))
	for i, n := range names {
		out[i] = map[string]any{"name": n}
	}
	return out
}

func conditions(types ...string) []any {
	out := make([]any, len(types))
	for i, c := range types {
		out[i] = map[string]any{"type": c}
	}
	return out
}

// randomize redraws n of the state's slots.
func (s *widgetState) randomize(r *rand.Rand, n int) {
	for range n {
		slot := widgetSlots[r.IntN(len(widgetSlots))]
		s.slots[fmt.Sprint(slot.path)] = slot.values[r.IntN(len(slot.values))]
	}
}

// render builds the Widget's JSON; entries are sent as its managedFields
// when not nil.
func (s *widgetState) render(t *testing.T, uid bool) []byte {
	t.Helper()
	md := map[string]any{"name": "w", "namespace": "default"}
	if uid {
		md["uid"] = "0b5c6f3e"
	}
	obj := map[string]any{"apiVersion": "stable.example.com/v1", "kind": "Widget", "metadata": md}
	for _, slot := range widgetSlots {
		v := s.slots[fmt.Sprint(slot.path)]
		if v == nil {
			continue
		}
		set(obj, slot.path, v)
	}
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// set puts v at path in obj, "*" standing for every entry of the list
// there; it does not create lists.
func set(obj map[string]any, path []string, v any) {
	for i, k := range path[:len(path)-1] {
		if path[i+1] == "*" {
			list, _ := obj[k].([]any)
			for _, e := range list {
				set(e.(map[string]any), path[i+2:], v)
			}
			return
		}
		next, ok := obj[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			obj[k] = next
		}
		obj = next
	}
	obj[path[len(path)-1]] = deepCopy(v)
}

func deepCopy(v any) any {
	b, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

// TestOwnedUpdatesMatchGeneralPath runs the same random writes against
// two field managers, one of which records every update the general way,
// and wants the same entries (sets, order, times) after every write. The
// writes mix managers, the main resource and status, applies, requests
// that carry the stored entries, none, or edited ones.
func TestOwnedUpdatesMatchGeneralPath(t *testing.T) {
	fast, general := newStore(t), newStore(t)
	patch.GeneralUpdatesOnly(general.p.FieldManager)
	r := rand.New(rand.NewPCG(1, 2))
	managers := []string{"a", "b", "c"}
	var hits, misses, refreshed int
	for round := range 40 {
		state := &widgetState{slots: map[string]any{}}
		fast.obj, fast.managed, general.obj, general.managed = nil, nil, nil, nil
		manager := managers[r.IntN(len(managers))]
		for step := range 60 {
			if r.IntN(10) < 4 {
				manager = managers[r.IntN(len(managers))]
			}
			state.randomize(r, 1+r.IntN(2))
			if step > 0 && r.IntN(12) == 0 {
				cfg := fmt.Sprintf(`{%s,"spec":{"size":"l","ports":[{"name":"http","port":%d}]}}`, w, 80+r.IntN(2))
				fast.mustApply("applier", "", true, cfg)
				general.mustApply("applier", "", true, cfg)
				continue
			}
			sub := ""
			if r.IntN(4) == 0 {
				sub = "status"
			}
			obj := state.render(t, step > 0)
			sent := sentEntries(r, fast.managed)
			if step > 0 {
				if patch.OwnedUpdate(fast.p.FieldManager, fast.obj, obj, fast.managed, sent, manager, sub) {
					hits++
				} else {
					misses++
				}
			}
			before := entriesWithTimes(fast.managed)
			fast.write(manager, sub, obj, sent)
			general.write(manager, sub, obj, sent)
			if diff := cmp.Diff(general.managed, fast.managed); diff != "" {
				t.Fatalf("round %d step %d: update by %s through %q of %s over\n%s\ngives entries (-the general path +fast):\n%s",
					round, step, manager, sub, obj, before, diff)
			}
			if before != entriesWithTimes(fast.managed) && step > 0 {
				refreshed++
			}
		}
	}
	t.Logf("shortcut taken %d times, not taken %d times, entries changed %d times", hits, misses, refreshed)
	// The writes must exercise both paths, or the comparison shows nothing.
	if hits < 200 || misses < 200 || refreshed < 200 {
		t.Errorf("shortcut taken %d times, not taken %d times, entries changed %d times", hits, misses, refreshed)
	}
}

// sentEntries draws the managedFields a request carries: the stored ones
// (read-modify-write), none (patches of the stored object keep them, but
// a client may drop them), or the stored ones with one dropped.
func sentEntries(r *rand.Rand, stored []meta.ManagedFieldsEntry) []meta.ManagedFieldsEntry {
	switch n := r.IntN(8); {
	case n < 5:
		return stored
	case n < 7 || len(stored) < 2:
		return nil
	default:
		i := r.IntN(len(stored))
		out := append([]meta.ManagedFieldsEntry{}, stored[:i]...)
		return append(out, stored[i+1:]...)
	}
}

// write stores obj as written by manager through sub, the request
// carrying sent; a create when nothing is stored, recorded as the store's
// creates are when the request carries no entries.
func (s *store) write(manager, sub string, obj []byte, sent []meta.ManagedFieldsEntry) {
	s.t.Helper()
	if s.obj == nil && sent == nil {
		s.update(manager, sub, string(obj))
		return
	}
	s.clock.step()
	entries, err := s.p.Update(s.obj, obj, patch.UpdateOptions{Manager: manager, Subresource: sub, LiveManaged: s.managed, NewManaged: sent})
	if err != nil {
		s.t.Fatal(err)
	}
	s.obj, s.managed = obj, entries
}

func entriesWithTimes(entries []meta.ManagedFieldsEntry) string {
	var b strings.Builder
	for _, e := range entries {
		fmt.Fprintf(&b, "%s %s %s /%s %s %v\n", e.Manager, e.Operation, e.APIVersion, e.Subresource, e.FieldsV1.Raw, e.Time)
	}
	return b.String()
}

// TestOwnedUpdates lists updates that take the shortcut for a manager
// changing only its own fields, and updates that must not, and wants the
// general path's entries from every one.
func TestOwnedUpdates(t *testing.T) {
	const (
		stored = `{` + w + `,"metadata":{"uid":"u","generation":1,"resourceVersion":"5","labels":{"a":"1"}},` +
			`"spec":{"replicas":1,"color":"red","ports":[{"name":"http","port":80}]},"status":{"readyReplicas":1}}`
		creator = `{"f:metadata":{"f:labels":{".":{},"f:a":{}}},"f:spec":{".":{},"f:color":{},"f:ports":{".":{},"k:{\"name\":\"http\"}":{".":{},"f:name":{},"f:port":{}}},"f:replicas":{}}}`
		status  = `{"f:status":{".":{},"f:readyReplicas":{}}}`
		sizer   = `{"f:spec":{"f:size":{}}}`
	)
	entries := func(creatorFields string) []meta.ManagedFieldsEntry {
		return []meta.ManagedFieldsEntry{
			entry("creator", meta.ManagedFieldsOperationUpdate, "stable.example.com/v1", "", creatorFields),
			entry("kubelet", meta.ManagedFieldsOperationUpdate, "stable.example.com/v1", "status", status),
			entry("sizer", meta.ManagedFieldsOperationUpdate, "stable.example.com/v1", "", sizer),
		}
	}
	withSize := `{` + w + `,"metadata":{"uid":"u","generation":1,"resourceVersion":"5","labels":{"a":"1"}},` +
		`"spec":{"replicas":1,"color":"red","size":"s","ports":[{"name":"http","port":80}]},"status":{"readyReplicas":1}}`
	tests := []struct {
		name, manager, sub, live, obj string
		sent                          []meta.ManagedFieldsEntry
		taken, refreshed              bool
	}{
		{"no change", "creator", "", stored, stored, nil, true, false},
		{"own field", "creator", "", stored, strings.Replace(stored, `"replicas":1`, `"replicas":2`, 1), nil, true, true},
		{"own field, new generation and resourceVersion", "creator", "",
			stored, strings.NewReplacer(`"replicas":1`, `"replicas":2`, `"generation":1`, `"generation":2`, `"resourceVersion":"5"`, `"resourceVersion":"6"`).Replace(stored), nil, true, true},
		{"own list entry's field", "creator", "", stored, strings.Replace(stored, `"port":80`, `"port":81`, 1), nil, true, true},
		{"own label", "creator", "", stored, strings.Replace(stored, `"a":"1"`, `"a":"2"`, 1), nil, true, true},
		{"only status, reset on the main resource", "creator", "", stored, strings.Replace(stored, `"readyReplicas":1`, `"readyReplicas":2`, 1), nil, true, false},
		{"status through status", "kubelet", "status", stored, strings.Replace(stored, `"readyReplicas":1`, `"readyReplicas":2`, 1), nil, true, true},
		{"another manager's field", "creator", "", withSize, strings.Replace(withSize, `"size":"s"`, `"size":"l"`, 1), nil, false, true},
		{"new field", "creator", "", stored, strings.Replace(stored, `"color":"red"`, `"color":"red","size":"s"`, 1), nil, false, true},
		{"new list entry", "creator", "", stored, strings.Replace(stored, `{"name":"http","port":80}`, `{"name":"http","port":80},{"name":"https","port":443}`, 1), nil, false, true},
		{"removed own field", "creator", "", stored, strings.Replace(stored, `"color":"red",`, ``, 1), nil, false, true},
		{"removed label map", "creator", "", stored, strings.Replace(stored, `,"labels":{"a":"1"}`, ``, 1), nil, false, true},
		{"new manager", "other", "", stored, strings.Replace(stored, `"replicas":1`, `"replicas":2`, 1), nil, false, true},
		{"own field through another subresource", "creator", "status", stored, strings.Replace(stored, `"readyReplicas":1`, `"readyReplicas":2`, 1), nil, false, true},
		{"sent entries owning a stripped field that changes", "creator", "",
			stored, strings.Replace(stored, `"generation":1`, `"generation":2`, 1),
			entries(`{"f:metadata":{"f:generation":{}},"f:spec":{"f:replicas":{}}}`), false, true},
		{"sent entries owning a reset field that changes", "creator", "",
			stored, strings.Replace(stored, `"readyReplicas":1`, `"readyReplicas":2`, 1),
			entries(`{"f:spec":{"f:replicas":{}},"f:status":{"f:readyReplicas":{}}}`), true, false},
		{"create carrying the creator's entries", "creator", "", "", stored, entries(creator), true, true},
		{"create carrying entries of others", "other", "", "", stored, entries(creator), false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fast, general := newStore(t), newStore(t)
			patch.GeneralUpdatesOnly(general.p.FieldManager)
			var live []byte
			managed := entries(creator)
			if tc.live != "" {
				live = js(t, tc.live)
			} else {
				managed = nil
			}
			obj := js(t, tc.obj)
			if taken := patch.OwnedUpdate(fast.p.FieldManager, live, obj, managed, tc.sent, tc.manager, tc.sub); taken != tc.taken {
				t.Errorf("shortcut taken %v, want %v", taken, tc.taken)
			}
			for _, s := range []*store{fast, general} {
				s.obj, s.managed = live, managed
				s.write(tc.manager, tc.sub, obj, tc.sent)
			}
			if diff := cmp.Diff(general.managed, fast.managed); diff != "" {
				t.Fatalf("entries (-the general path +fast):\n%s", diff)
			}
			start := tc.sent
			if start == nil {
				start = managed
			}
			if refreshed := entriesWithTimes(fast.managed) != entriesWithTimes(start); refreshed != tc.refreshed {
				t.Errorf("entries changed %v, want %v:\n%s", refreshed, tc.refreshed, entriesWithTimes(fast.managed))
			}
		})
	}
}

// TestReappliesMatchGeneralPath runs the same random applies, mixed with
// updates, against two field managers, one of which prunes every apply the
// general way, and wants the same objects and entries after every write.
// Appliers apply random parts of a random Widget, so that they often
// apply again every field they applied before, and as often drop some.
func TestReappliesMatchGeneralPath(t *testing.T) {
	fast, general := newStore(t), newStore(t)
	patch.GeneralUpdatesOnly(general.p.FieldManager)
	r := rand.New(rand.NewPCG(3, 4))
	appliers := []string{"x", "y"}
	var hits, misses int
	for round := range 30 {
		state := &widgetState{slots: map[string]any{}}
		state.randomize(r, 6)
		obj := state.render(t, false)
		fast.obj, fast.managed, general.obj, general.managed = nil, nil, nil, nil
		fast.update("creator", "", string(obj))
		general.update("creator", "", string(obj))
		for step := range 40 {
			state.randomize(r, 1+r.IntN(2))
			if r.IntN(5) == 0 {
				obj := state.render(t, true)
				fast.write("updater", "", obj, fast.managed)
				general.write("updater", "", obj, general.managed)
			} else {
				applier := appliers[r.IntN(len(appliers))]
				cfg := partOf(t, r, state)
				if patch.ReappliesAll(fast.p.FieldManager, js(t, cfg), fast.managed, applier, "") {
					hits++
				} else {
					misses++
				}
				fast.mustApply(applier, "", true, cfg)
				general.mustApply(applier, "", true, cfg)
			}
			if !bytes.Equal(fast.obj, general.obj) {
				t.Fatalf("round %d step %d: object\n%s\nthe general path\n%s", round, step, fast.obj, general.obj)
			}
			if diff := cmp.Diff(general.managed, fast.managed); diff != "" {
				t.Fatalf("round %d step %d: entries (-the general path +fast):\n%s", round, step, diff)
			}
		}
	}
	t.Logf("prune skipped %d times, run %d times", hits, misses)
	if hits < 100 || misses < 100 {
		t.Errorf("prune skipped %d times, run %d times", hits, misses)
	}
}

// partOf is an apply configuration of the Widget of state holding each
// of its spec and metadata slots with probability 3/4.
func partOf(t *testing.T, r *rand.Rand, state *widgetState) string {
	t.Helper()
	part := &widgetState{slots: map[string]any{}}
	for k, v := range state.slots {
		if !strings.HasPrefix(k, "[status") && r.IntN(4) > 0 {
			part.slots[k] = v
		}
	}
	return string(part.render(t, false))
}
