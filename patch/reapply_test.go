package patch_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/patch"
)

// TestSameFieldsAppliesMatchGeneralPath runs the same random applies,
// mixed with updates, against two field managers, one of which merges
// every apply through structured-merge-diff's Updater, and wants the same
// errors, objects and entries (with times) after every write. Each
// applier keeps applying one set of fields for a while, with values from
// small domains, so that an apply often sets only fields the applier
// applied last time (to the values they have, or to others), while
// updates and other appliers take fields, remove them or share them, and
// unforced applies conflict.
func TestSameFieldsAppliesMatchGeneralPath(t *testing.T) {
	fast, general := newStore(t), newStore(t)
	patch.GeneralUpdatesOnly(general.p.FieldManager)
	r := rand.New(rand.NewPCG(5, 6))
	appliers := []struct{ name, sub string }{{"x", ""}, {"y", ""}, {"kubectl", ""}, {"kubelet", "status"}}
	var hits, misses, changed, conflicts int
	for round := range 40 {
		state := &widgetState{slots: map[string]any{}}
		state.randomize(r, 6)
		fast.obj, fast.managed, general.obj, general.managed = nil, nil, nil, nil
		fast.update("creator", "", string(state.render(t, false)))
		general.update("creator", "", string(state.render(t, false)))
		shapes := map[string][]int{}
		for step := range 50 {
			if r.IntN(10) == 0 {
				state.randomize(r, 1+r.IntN(2))
				obj := state.render(t, true)
				fast.write("updater", "", obj, fast.managed)
				general.write("updater", "", obj, general.managed)
			} else {
				a := appliers[r.IntN(len(appliers))]
				if shapes[a.name] == nil || r.IntN(8) == 0 {
					shapes[a.name] = randomShape(r, a.sub == "status")
				}
				cfg := configOf(t, r, shapes[a.name])
				force := r.IntN(3) > 0
				if patch.SameFieldsApply(fast.p.FieldManager, fast.obj, js(t, cfg), fast.managed, a.name, a.sub) {
					hits++
				} else {
					misses++
				}
				before := fast.obj
				errFast := fast.apply(a.name, a.sub, force, cfg)
				errGeneral := general.apply(a.name, a.sub, force, cfg)
				if fmt.Sprint(errFast) != fmt.Sprint(errGeneral) {
					t.Fatalf("round %d step %d: apply by %s of %s: error %v, the general path %v", round, step, a.name, cfg, errFast, errGeneral)
				}
				if errFast != nil {
					conflicts++
				} else if !bytes.Equal(before, fast.obj) {
					changed++
				}
			}
			if !bytes.Equal(fast.obj, general.obj) {
				t.Fatalf("round %d step %d: object\n%s\nthe general path\n%s", round, step, fast.obj, general.obj)
			}
			if diff := cmp.Diff(general.managed, fast.managed); diff != "" {
				t.Fatalf("round %d step %d: entries (-the general path +fast):\n%s", round, step, diff)
			}
		}
	}
	t.Logf("shortcut taken %d times, not taken %d times; %d applies changed the object, %d failed", hits, misses, changed, conflicts)
	// Both paths, changes and conflicts must be exercised, or the
	// comparison shows little.
	if hits < 300 || misses < 300 || changed < 300 || conflicts < 50 {
		t.Errorf("shortcut taken %d times, not taken %d times; %d applies changed the object, %d failed", hits, misses, changed, conflicts)
	}
}

// randomShape draws the slots of widgetSlots an applier applies: of the
// spec and metadata, or of the status.
func randomShape(r *rand.Rand, status bool) []int {
	var shape []int
	for i, slot := range widgetSlots {
		if throughList(slot.path) || (slot.path[0] == "status") != status {
			continue
		}
		// Lists take the shortcut only when applied as they are: apply
		// them less often.
		odds := 2
		if _, list := slot.values[len(slot.values)-1].([]any); list {
			odds = 4
		}
		if r.IntN(odds) == 0 {
			shape = append(shape, i)
		}
	}
	return shape
}

// throughList reports whether path goes through the entries of a list.
func throughList(path []string) bool {
	for _, p := range path {
		if p == "*" {
			return true
		}
	}
	return false
}

// configOf is an apply configuration setting each slot of shape to one of
// its values, drawn at random.
func configOf(t *testing.T, r *rand.Rand, shape []int) string {
	t.Helper()
	part := &widgetState{slots: map[string]any{}}
	for _, i := range shape {
		slot := widgetSlots[i]
		var values []any
		for _, v := range slot.values {
			if v != nil {
				values = append(values, v)
			}
		}
		part.slots[fmt.Sprint(slot.path)] = values[r.IntN(len(values))]
	}
	return string(part.render(t, false))
}

// TestSameFieldsApplies lists applies that take the shortcut for an apply
// of the fields the applier applied last time, and applies that must not,
// and wants the general path's object, entries and error from every one.
func TestSameFieldsApplies(t *testing.T) {
	const (
		live = `{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"default","uid":"u","labels":{"a":"1"}},` +
			`"spec":{"replicas":1,"color":"red","size":"s","tags":["t"],"ports":[{"name":"http","port":80}]},"status":{"readyReplicas":1}}`
		lists   = `{"f:spec":{"f:ports":{"k:{\"name\":\"http\"}":{".":{},"f:name":{},"f:port":{}}},"f:tags":{"v:\"t\"":{}}}}`
		applied = `{"f:metadata":{"f:labels":{"f:a":{}}},"f:spec":{"f:color":{},"f:replicas":{}}}`
		sizer   = `{"f:spec":{"f:size":{}}}`
		status  = `{"f:status":{"f:readyReplicas":{}}}`
	)
	stored := []meta.ManagedFieldsEntry{
		entry("lister", meta.ManagedFieldsOperationApply, "stable.example.com/v1", "", lists),
		entry("a", meta.ManagedFieldsOperationApply, "stable.example.com/v1", "", applied),
		entry("sizer", meta.ManagedFieldsOperationApply, "stable.example.com/v1", "", sizer),
		entry("kubelet", meta.ManagedFieldsOperationApply, "stable.example.com/v1", "status", status),
	}
	cfg := func(labels, spec string) string {
		return `{` + w[:len(w)-1] + `,"labels":{` + labels + `}},"spec":{` + spec + `}}`
	}
	tests := []struct {
		name, manager, sub, cfg string
		force, taken            bool
	}{
		{"same values", "a", "", cfg(`"a":"1"`, `"replicas":1,"color":"red"`), false, true},
		{"new values", "a", "", cfg(`"a":"2"`, `"replicas":5,"color":"blue"`), false, true},
		{"new values, metadata holding only stripped fields", "a", "",
			`{` + w + `,"metadata":{"labels":{"a":"1"}},"spec":{"replicas":2,"color":"red"}}`, false, true},
		{"status through status", "kubelet", "status", `{` + w + `,"status":{"readyReplicas":3}}`, false, true},
		{"a field less", "a", "", cfg(`"a":"1"`, `"replicas":2`), false, false},
		{"a field more", "a", "", cfg(`"a":"1"`, `"replicas":2,"color":"red","size":"s"`), true, false},
		{"another applier's field", "sizer", "", `{` + w + `,"spec":{"size":"l","replicas":2}}`, false, false},
		{"a field another manager owns, forced", "sizer", "", `{` + w + `,"spec":{"size":"l","replicas":2}}`, true, false},
		{"a new manager", "b", "", cfg(`"a":"1"`, `"replicas":1,"color":"red"`), false, false},
		{"status fields through the main resource", "kubelet", "", `{` + w + `,"status":{"readyReplicas":3}}`, false, false},
		{"a wrong type", "a", "", cfg(`"a":"1"`, `"replicas":"1","color":"red"`), false, false},
		{"lists as they are", "lister", "", `{` + w + `,"spec":{"tags":["t"],"ports":[{"name":"http","port":80}]}}`, true, true},
		{"a list changed", "lister", "", `{` + w + `,"spec":{"tags":["t","u"],"ports":[{"name":"http","port":80}]}}`, true, false},
		{"a list item changed", "lister", "", `{` + w + `,"spec":{"tags":["t"],"ports":[{"name":"http","port":81}]}}`, true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fast, general := newStore(t), newStore(t)
			patch.GeneralUpdatesOnly(general.p.FieldManager)
			if taken := patch.SameFieldsApply(fast.p.FieldManager, js(t, live), []byte(tc.cfg), stored, tc.manager, tc.sub); taken != tc.taken {
				t.Errorf("shortcut taken %v, want %v", taken, tc.taken)
			}
			var errs []string
			for _, s := range []*store{fast, general} {
				s.obj, s.managed = js(t, live), stored
				errs = append(errs, fmt.Sprint(s.apply(tc.manager, tc.sub, tc.force, tc.cfg)))
			}
			if errs[0] != errs[1] {
				t.Fatalf("error %s, the general path %s", errs[0], errs[1])
			}
			if !bytes.Equal(fast.obj, general.obj) {
				t.Fatalf("object\n%s\nthe general path\n%s", fast.obj, general.obj)
			}
			if diff := cmp.Diff(general.managed, fast.managed); diff != "" {
				t.Fatalf("entries (-the general path +fast):\n%s", diff)
			}
			if tc.taken && !strings.Contains(string(fast.obj), `"replicas"`) {
				t.Errorf("object lost its fields: %s", fast.obj)
			}
		})
	}
}
