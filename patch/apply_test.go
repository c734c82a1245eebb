package patch_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/patch"
)

// store is one stored Widget: its JSON (without managedFields) and its
// managedFields, as an apiserver keeps them.
type store struct {
	t       *testing.T
	p       *patch.Patcher
	clock   *clock
	obj     []byte
	managed []meta.ManagedFieldsEntry
}

func newStore(t *testing.T) *store {
	c := newClock()
	return &store{t: t, p: widgetPatcher(t, c), clock: c}
}

// stamp sets the fields the apiserver assigns on create.
func stamp(t testing.TB, obj []byte) []byte {
	var m map[string]any
	if err := json.Unmarshal(obj, &m); err != nil {
		t.Fatal(err)
	}
	md, _ := m["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
		m["metadata"] = md
	}
	md["uid"] = "0b5c6f3e"
	b, _ := json.Marshal(m)
	return b
}

func (s *store) apply(manager, sub string, force bool, cfg string) error {
	s.t.Helper()
	s.clock.step()
	out, entries, err := s.p.Apply(s.obj, js(s.t, cfg), patch.ApplyOptions{Manager: manager, Subresource: sub, Force: force, LiveManaged: s.managed})
	if err != nil {
		return err
	}
	if s.obj == nil {
		out = stamp(s.t, out)
	}
	s.obj, s.managed = out, entries
	return nil
}

func (s *store) mustApply(manager, sub string, force bool, cfg string) {
	s.t.Helper()
	if err := s.apply(manager, sub, force, cfg); err != nil {
		s.t.Fatalf("apply by %s: %v", manager, err)
	}
}

// update stores obj as written by manager, the request carrying the
// stored managedFields as clients that read-modify-write do.
func (s *store) update(manager, sub, obj string) {
	s.t.Helper()
	s.clock.step()
	o := js(s.t, obj)
	if s.obj == nil {
		entries, err := s.p.Update(nil, o, patch.UpdateOptions{Manager: manager, Subresource: sub})
		if err != nil {
			s.t.Fatal(err)
		}
		s.obj, s.managed = stamp(s.t, o), entries
		return
	}
	o = stamp(s.t, o)
	entries, err := s.p.Update(s.obj, o, patch.UpdateOptions{Manager: manager, Subresource: sub, LiveManaged: s.managed, NewManaged: s.managed})
	if err != nil {
		s.t.Fatal(err)
	}
	s.obj, s.managed = o, entries
}

func (s *store) wantFields(want string) {
	s.t.Helper()
	if got := fieldsOf(s.managed); got != strings.TrimLeft(want, "\n") {
		s.t.Errorf("managedFields:\n%s\nwant:\n%s", got, strings.TrimLeft(want, "\n"))
	}
}

func (s *store) wantObject(want string) {
	s.t.Helper()
	jsonEqual(s.t, s.obj, want)
}

const w = `"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"default"}`

func TestApplyCreates(t *testing.T) {
	s := newStore(t)
	s.mustApply("kubectl", "", false, `{`+w+`,"spec":{"replicas":3,"color":"blue","tags":["a","b"],"ports":[{"name":"http","port":80}]}}`)
	s.wantObject(`{` + w[:len(w)-1] + `,"uid":"0b5c6f3e"},"spec":{"replicas":3,"color":"blue","tags":["a","b"],"ports":[{"name":"http","port":80}]}}`)
	if len(s.managed) != 1 {
		t.Fatalf("entries: %+v", s.managed)
	}
	e := s.managed[0]
	if e.Manager != "kubectl" || e.Operation != meta.ManagedFieldsOperationApply || e.APIVersion != "stable.example.com/v1" ||
		e.FieldsType != "FieldsV1" || e.Subresource != "" {
		t.Errorf("entry %+v", e)
	}
	if e.Time == nil || !e.Time.Equal(s.clock.now.Truncate(time.Second)) {
		t.Errorf("time %v, want %v to the second", e.Time, s.clock.now)
	}
	const trie = `{"f:spec":{"f:color":{},"f:ports":{"k:{\"name\":\"http\"}":{".":{},"f:name":{},"f:port":{}}},"f:replicas":{},"f:tags":{"v:\"a\"":{},"v:\"b\"":{}}}}`
	if string(e.FieldsV1.Raw) != trie {
		t.Errorf("fieldsV1 %s\nwant      %s", e.FieldsV1.Raw, trie)
	}
	b, _ := json.Marshal(e)
	want := `{"manager":"kubectl","operation":"Apply","apiVersion":"stable.example.com/v1","time":"2024-05-06T07:08:10Z","fieldsType":"FieldsV1","fieldsV1":` + trie + `}`
	if string(b) != want {
		t.Errorf("wire form %s\nwant      %s", b, want)
	}
}

func TestApplyConflictWithUpdater(t *testing.T) {
	s := newStore(t)
	s.update("kubectl-client-side-apply", "", `{`+w+`,"spec":{"replicas":3,"color":"blue"}}`)
	err := s.apply("ci", "", false, `{`+w+`,"spec":{"replicas":5}}`)
	st := wantStatus(t, err, 409, meta.StatusReasonConflict,
		`Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using stable.example.com/v1: .spec.replicas`)
	want := []meta.StatusCause{{Type: "FieldManagerConflict", Message: `conflict with "kubectl-client-side-apply" using stable.example.com/v1`, Field: ".spec.replicas"}}
	if st.Details == nil || len(st.Details.Causes) != 1 || st.Details.Causes[0] != want[0] {
		t.Errorf("details %+v", st.Details)
	}
	if st.Details.Name != "" || st.Details.Kind != "" {
		t.Errorf("kube's apply conflict carries only causes: %+v", st.Details)
	}
}

func TestApplyConflictMessages(t *testing.T) {
	s := newStore(t)
	s.mustApply("alice", "", false, `{`+w+`,"spec":{"color":"blue","size":"big"}}`)
	s.update("bob", "status", `{`+w+`,"spec":{"color":"blue","size":"big"},"status":{"selector":"x"}}`)
	s.mustApply("carol", "status", false, `{`+w+`,"status":{"readyReplicas":1}}`)
	err := s.apply("dave", "", false, `{`+w+`,"spec":{"color":"red","size":"small"}}`)
	st := wantStatus(t, err, 409, meta.StatusReasonConflict,
		"Apply failed with 2 conflicts: conflicts with \"alice\":\n- .spec.color\n- .spec.size")
	if len(st.Details.Causes) != 2 || st.Details.Causes[0].Message != `conflict with "alice"` || st.Details.Causes[1].Field != ".spec.size" {
		t.Errorf("causes %+v", st.Details.Causes)
	}
	// Managers of subresources are named with them.
	sub := newStore(t)
	sub.update("creator", "", `{`+w+`,"spec":{"color":"blue"}}`)
	sub.update("kubelet", "status", `{`+w+`,"spec":{"color":"blue"},"status":{"readyReplicas":1}}`)
	err = sub.apply("other", "status", false, `{`+w+`,"status":{"readyReplicas":2}}`)
	wantStatus(t, err, 409, meta.StatusReasonConflict,
		`Apply failed with 1 conflict: conflict with "kubelet" with subresource "status" using stable.example.com/v1: .status.readyReplicas`)
	err = sub.apply("other", "", false, `{`+w+`,"spec":{"color":"red","size":"s"}}`)
	wantStatus(t, err, 409, meta.StatusReasonConflict,
		`Apply failed with 1 conflict: conflict with "creator" using stable.example.com/v1: .spec.color`)
}

// The three ways out of a conflict the documentation lists.
func TestApplyConflictResolutions(t *testing.T) {
	start := func(t *testing.T) *store {
		s := newStore(t)
		s.mustApply("alice", "", false, `{`+w+`,"spec":{"replicas":3,"color":"blue"}}`)
		s.mustApply("bob", "", false, `{`+w+`,"spec":{"size":"big"}}`)
		if err := s.apply("bob", "", false, `{`+w+`,"spec":{"size":"big","replicas":5}}`); err == nil {
			t.Fatal("no conflict")
		}
		return s
	}
	t.Run("overwrite with force, become sole manager", func(t *testing.T) {
		s := start(t)
		s.mustApply("bob", "", true, `{`+w+`,"spec":{"size":"big","replicas":5}}`)
		s.wantObject(`{` + w[:len(w)-1] + `,"uid":"0b5c6f3e"},"spec":{"replicas":5,"color":"blue","size":"big"}}`)
		s.wantFields(`
alice Apply stable.example.com/v1 {"f:spec":{"f:color":{}}}
bob Apply stable.example.com/v1 {"f:spec":{"f:replicas":{},"f:size":{}}}
`)
	})
	t.Run("don't overwrite, give up the claim", func(t *testing.T) {
		s := start(t)
		s.mustApply("bob", "", false, `{`+w+`,"spec":{"size":"big"}}`)
		s.wantObject(`{` + w[:len(w)-1] + `,"uid":"0b5c6f3e"},"spec":{"replicas":3,"color":"blue","size":"big"}}`)
		s.wantFields(`
alice Apply stable.example.com/v1 {"f:spec":{"f:color":{},"f:replicas":{}}}
bob Apply stable.example.com/v1 {"f:spec":{"f:size":{}}}
`)
	})
	t.Run("don't overwrite, share the field", func(t *testing.T) {
		s := start(t)
		s.mustApply("bob", "", false, `{`+w+`,"spec":{"size":"big","replicas":3}}`)
		s.wantObject(`{` + w[:len(w)-1] + `,"uid":"0b5c6f3e"},"spec":{"replicas":3,"color":"blue","size":"big"}}`)
		s.wantFields(`
alice Apply stable.example.com/v1 {"f:spec":{"f:color":{},"f:replicas":{}}}
bob Apply stable.example.com/v1 {"f:spec":{"f:replicas":{},"f:size":{}}}
`)
		// Either sharer changing the value now conflicts with the other.
		err := s.apply("alice", "", false, `{`+w+`,"spec":{"replicas":4,"color":"blue"}}`)
		wantStatus(t, err, 409, meta.StatusReasonConflict, `Apply failed with 1 conflict: conflict with "bob": .spec.replicas`)
	})
}

func TestApplySharedFieldRemovedWhenNobodyOwnsIt(t *testing.T) {
	s := newStore(t)
	s.mustApply("alice", "", false, `{`+w+`,"spec":{"color":"blue","size":"big"}}`)
	s.mustApply("bob", "", false, `{`+w+`,"spec":{"color":"blue"}}`)
	s.mustApply("alice", "", false, `{`+w+`,"spec":{"size":"big"}}`)
	s.wantObject(`{` + w[:len(w)-1] + `,"uid":"0b5c6f3e"},"spec":{"color":"blue","size":"big"}}`)
	s.mustApply("bob", "", false, `{`+w+`}`)
	s.wantObject(`{` + w[:len(w)-1] + `,"uid":"0b5c6f3e"},"spec":{"size":"big"}}`)
	s.wantFields(`
alice Apply stable.example.com/v1 {"f:spec":{"f:size":{}}}
`)
}

func TestApplyListMapEntriesPerManager(t *testing.T) {
	s := newStore(t)
	s.mustApply("alice", "", false, `{`+w+`,"spec":{"ports":[{"name":"http","port":80}],"tags":["a"]}}`)
	s.mustApply("bob", "", false, `{`+w+`,"spec":{"ports":[{"name":"https","port":443}],"tags":["b"]}}`)
	s.wantObject(`{` + w[:len(w)-1] + `,"uid":"0b5c6f3e"},"spec":{"ports":[{"name":"http","port":80},{"name":"https","port":443}],"tags":["a","b"]}}`)
	s.wantFields(`
alice Apply stable.example.com/v1 {"f:spec":{"f:ports":{"k:{\"name\":\"http\"}":{".":{},"f:name":{},"f:port":{}}},"f:tags":{"v:\"a\"":{}}}}
bob Apply stable.example.com/v1 {"f:spec":{"f:ports":{"k:{\"name\":\"https\"}":{".":{},"f:name":{},"f:port":{}}},"f:tags":{"v:\"b\"":{}}}}
`)
	// Changing another manager's entry conflicts on that entry's field.
	err := s.apply("bob", "", false, `{`+w+`,"spec":{"ports":[{"name":"https","port":443},{"name":"http","port":8080}],"tags":["b"]}}`)
	wantStatus(t, err, 409, meta.StatusReasonConflict, `Apply failed with 1 conflict: conflict with "alice": .spec.ports[name="http"].port`)
	// Dropping an entry removes it, and only it.
	s.mustApply("alice", "", false, `{`+w+`,"spec":{"tags":["a"]}}`)
	s.wantObject(`{` + w[:len(w)-1] + `,"uid":"0b5c6f3e"},"spec":{"ports":[{"name":"https","port":443}],"tags":["a","b"]}}`)
}

func TestApplyResultHoldsOnlyLiveAndAppliedFields(t *testing.T) {
	s := newStore(t)
	s.update("creator", "", `{`+w+`,"spec":{"color":"blue"},"status":{"readyReplicas":1}}`)
	s.mustApply("alice", "", false, `{`+w+`,"spec":{"size":"big"}}`)
	// No defaults, no status invented, nothing dropped.
	s.wantObject(`{` + w[:len(w)-1] + `,"uid":"0b5c6f3e"},"spec":{"color":"blue","size":"big"},"status":{"readyReplicas":1}}`)
}

func TestApplyRejects(t *testing.T) {
	s := newStore(t)
	tests := []struct {
		name, cfg string
		code      int32
		reason    meta.StatusReason
		msg       string
	}{
		{"managedFields in the body", `{` + w[:len(w)-1] + `,"managedFields":[{"manager":"x"}]}}`, 400, meta.StatusReasonBadRequest, "metadata.managedFields must be nil"},
		{"empty managedFields in the body", `{` + w[:len(w)-1] + `,"managedFields":[]}}`, 400, meta.StatusReasonBadRequest, "metadata.managedFields must be nil"},
		{"another version", `{"apiVersion":"stable.example.com/v2","kind":"Widget","metadata":{"name":"w"}}`, 400, meta.StatusReasonBadRequest, "invalid object type: stable.example.com/v2, Kind=Widget"},
		{"another kind", `{"apiVersion":"stable.example.com/v1","kind":"Gadget","metadata":{"name":"w"}}`, 400, meta.StatusReasonBadRequest, "invalid object type: stable.example.com/v1, Kind=Gadget"},
		{"no type", `{"metadata":{"name":"w"}}`, 400, meta.StatusReasonBadRequest, "invalid object type: /, Kind="},
		{"not YAML", "a: b: c", 400, meta.StatusReasonBadRequest, "error decoding YAML: error converting YAML to JSON: yaml: mapping values are not allowed in this context"},
		{"a list", `[1]`, 400, meta.StatusReasonBadRequest, "error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type map[string]interface {}"},
		{"a field the schema lacks", `{` + w + `,"spec":{"bogus":1}}`, 400, meta.StatusReasonBadRequest, "failed to create typed patch object (default/w; stable.example.com/v1, Kind=Widget): .spec.bogus: field not declared in schema"},
		{"a wrong type", `{` + w + `,"spec":{"replicas":"three"}}`, 400, meta.StatusReasonBadRequest, "failed to create typed patch object (default/w; stable.example.com/v1, Kind=Widget): .spec.replicas: expected numeric (int or float), got string"},
		{"duplicate keys", `{` + w + `,"spec":{"ports":[{"name":"a","port":1},{"name":"a","port":2}]}}`, 400, meta.StatusReasonBadRequest, `failed to create typed patch object (default/w; stable.example.com/v1, Kind=Widget): .spec.ports: duplicate entries for key [name="a"]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := s.p.Apply(nil, []byte(tc.cfg), patch.ApplyOptions{Manager: "m"})
			wantStatus(t, err, tc.code, tc.reason, tc.msg)
		})
	}
}

func TestApplyYAML(t *testing.T) {
	s := newStore(t)
	cfg := "apiVersion: stable.example.com/v1\nkind: Widget\nmetadata:\n  name: w\n  namespace: default\nspec:\n  replicas: 2\n  tags: [a]\n"
	out, entries, err := s.p.Apply(nil, []byte(cfg), patch.ApplyOptions{Manager: "kubectl"})
	if err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, out, `{`+w+`,"spec":{"replicas":2,"tags":["a"]}}`)
	if len(entries) != 1 || string(entries[0].FieldsV1.Raw) != `{"f:spec":{"f:replicas":{},"f:tags":{"v:\"a\"":{}}}}` {
		t.Errorf("entries %s", fieldsOf(entries))
	}
}

func TestApplyStatusSubresource(t *testing.T) {
	s := newStore(t)
	s.mustApply("alice", "", false, `{`+w+`,"spec":{"color":"blue"},"status":{"readyReplicas":9}}`)
	// status is reset on the main resource: not owned.
	s.wantFields(`
alice Apply stable.example.com/v1 {"f:spec":{"f:color":{}}}
`)
	s.mustApply("controller", "status", false, `{`+w+`,"status":{"readyReplicas":1,"conditions":[{"type":"Ready","status":"True"}]}}`)
	s.wantFields(`
alice Apply stable.example.com/v1 {"f:spec":{"f:color":{}}}
controller Apply stable.example.com/v1 /status {"f:status":{"f:conditions":{"k:{\"type\":\"Ready\"}":{".":{},"f:status":{},"f:type":{}}},"f:readyReplicas":{}}}
`)
	// The same manager through the main resource is another entry.
	s.mustApply("controller", "", false, `{`+w+`,"spec":{"size":"big"}}`)
	if len(s.managed) != 3 {
		t.Errorf("entries:\n%s", fieldsOf(s.managed))
	}
}

func TestManagedFieldsEntriesPerOperation(t *testing.T) {
	s := newStore(t)
	s.mustApply("tool", "", false, `{`+w+`,"spec":{"color":"blue"}}`)
	s.update("tool", "", `{`+w+`,"spec":{"color":"blue","size":"big"}}`)
	s.update("zed", "", `{`+w+`,"spec":{"color":"blue","size":"big","replicas":1}}`)
	s.update("abe", "", `{`+w+`,"spec":{"color":"blue","size":"big","replicas":1,"tags":["x"]}}`)
	// Apply entries first, then updates oldest first.
	s.wantFields(`
tool Apply stable.example.com/v1 {"f:spec":{"f:color":{}}}
tool Update stable.example.com/v1 {"f:spec":{"f:size":{}}}
zed Update stable.example.com/v1 {"f:spec":{"f:replicas":{}}}
abe Update stable.example.com/v1 {"f:spec":{"f:tags":{".":{},"v:\"x\"":{}}}}
`)
}

func TestApplyNoOpKeepsTime(t *testing.T) {
	s := newStore(t)
	cfg := `{` + w + `,"spec":{"color":"blue"}}`
	s.mustApply("a", "", false, cfg)
	before := *s.managed[0].Time
	s.clock.now = s.clock.now.Add(time.Hour)
	s.mustApply("a", "", false, cfg)
	if !s.managed[0].Time.Equal(before.Time) {
		t.Errorf("no-op apply moved the time from %v to %v", before, s.managed[0].Time)
	}
}

func TestApplyBeforeFirstApply(t *testing.T) {
	t.Run("object created by an update", func(t *testing.T) {
		// Tracking starts at create: the creator owns the fields, no
		// before-first-apply entry is needed.
		s := newStore(t)
		s.update("creator", "", `{`+w+`,"spec":{"replicas":1,"color":"blue"}}`)
		err := s.apply("kubectl", "", false, `{`+w+`,"spec":{"replicas":2}}`)
		wantStatus(t, err, 409, meta.StatusReasonConflict, `Apply failed with 1 conflict: conflict with "creator" using stable.example.com/v1: .spec.replicas`)
		s.mustApply("kubectl", "", false, `{`+w+`,"spec":{"replicas":1,"size":"big"}}`)
		s.wantFields(`
kubectl Apply stable.example.com/v1 {"f:spec":{"f:replicas":{},"f:size":{}}}
creator Update stable.example.com/v1 {"f:spec":{".":{},"f:color":{},"f:replicas":{}}}
`)
	})
	t.Run("object without managedFields", func(t *testing.T) {
		s := newStore(t)
		s.obj = stamp(t, js(t, `{`+w+`,"spec":{"replicas":1,"color":"blue"}}`))
		err := s.apply("kubectl", "", false, `{`+w+`,"spec":{"replicas":2}}`)
		wantStatus(t, err, 409, meta.StatusReasonConflict, `Apply failed with 1 conflict: conflict with "before-first-apply" using stable.example.com/v1: .spec.replicas`)
		s.mustApply("kubectl", "", false, `{`+w+`,"spec":{"size":"big"}}`)
		s.wantFields(`
kubectl Apply stable.example.com/v1 {"f:spec":{"f:size":{}}}
before-first-apply Update stable.example.com/v1 {"f:spec":{".":{},"f:color":{},"f:replicas":{}}}
`)
	})
}

// The seed's walkthrough: handing spec.replicas from a user to a
// controller through a temporary manager.
func TestApplyHandOverToController(t *testing.T) {
	s := newStore(t)
	full := `{` + w[:len(w)-1] + `,"labels":{"app":"nginx"}},"spec":{"replicas":3,"color":"blue"}}`
	s.mustApply("kubectl", "", false, full)
	// A configuration with only replicas, applied by handover-to-hpa:
	// same value, so ownership is shared.
	s.mustApply("handover-to-hpa", "", false, `{`+w+`,"spec":{"replicas":3}}`)
	// The user drops replicas from the configuration; the value stays.
	s.mustApply("kubectl", "", false, `{`+w[:len(w)-1]+`,"labels":{"app":"nginx"}},"spec":{"color":"blue"}}`)
	s.wantObject(`{` + w[:len(w)-1] + `,"uid":"0b5c6f3e","labels":{"app":"nginx"}},"spec":{"replicas":3,"color":"blue"}}`)
	s.wantFields(`
handover-to-hpa Apply stable.example.com/v1 {"f:spec":{"f:replicas":{}}}
kubectl Apply stable.example.com/v1 {"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:color":{}}}
`)
	// The controller scales: the temporary manager owns nothing any
	// more and its entry disappears by itself.
	s.update("horizontal-pod-autoscaler", "", `{`+w[:len(w)-1]+`,"labels":{"app":"nginx"}},"spec":{"replicas":7,"color":"blue"}}`)
	s.wantFields(`
kubectl Apply stable.example.com/v1 {"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:color":{}}}
horizontal-pod-autoscaler Update stable.example.com/v1 {"f:spec":{"f:replicas":{}}}
`)
	// The user's applies no longer touch replicas.
	s.mustApply("kubectl", "", false, `{`+w[:len(w)-1]+`,"labels":{"app":"nginx"}},"spec":{"color":"green"}}`)
	s.wantObject(`{` + w[:len(w)-1] + `,"uid":"0b5c6f3e","labels":{"app":"nginx"}},"spec":{"replicas":7,"color":"green"}}`)
}

// kubectl apply --server-side after client-side kubectl apply: conflicts
// on fields the last-applied annotation shows kubectl set are its own.
func TestApplyUpgradesFromClientSideApply(t *testing.T) {
	lastApplied := `{\"apiVersion\":\"stable.example.com/v1\",\"kind\":\"Widget\",\"metadata\":{\"annotations\":{},\"name\":\"w\",\"namespace\":\"default\"},\"spec\":{\"color\":\"blue\",\"replicas\":3}}\n`
	live := `{` + w[:len(w)-1] + `,"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"` + lastApplied + `"}},"spec":{"replicas":3,"color":"blue"}}`
	cfg := `{` + w + `,"spec":{"replicas":4,"color":"blue"}}`
	for _, manager := range []string{"kubectl", "my-manager"} {
		t.Run(manager, func(t *testing.T) {
			s := newStore(t)
			s.update("kubectl-client-side-apply", "", live)
			err := s.apply(manager, "", false, cfg)
			if manager != "kubectl" {
				wantStatus(t, err, 409, meta.StatusReasonConflict,
					`Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using stable.example.com/v1: .spec.replicas`)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			s.wantFields(`
kubectl Apply stable.example.com/v1 {"f:spec":{"f:color":{},"f:replicas":{}}}
kubectl-client-side-apply Update stable.example.com/v1 {"f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/last-applied-configuration":{}}},"f:spec":{".":{},"f:color":{}}}
`)
			// The annotation now holds the applied configuration.
			var obj struct {
				Metadata struct{ Annotations map[string]string }
			}
			json.Unmarshal(s.obj, &obj)
			got := obj.Metadata.Annotations[patch.LastAppliedConfigAnnotation]
			if got != `{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"default"},"spec":{"color":"blue","replicas":4}}`+"\n" {
				t.Errorf("last-applied %q", got)
			}
		})
	}
}

// TestApplyLiveObject checks that an apply given the stored object
// already decoded applies to that form, and that given the form its JSON
// decodes to, it gives what decoding the JSON gives.
func TestApplyLiveObject(t *testing.T) {
	s := newStore(t)
	s.update("creator", "", `{`+w+`,"spec":{"color":"blue"},"status":{"readyReplicas":1}}`)
	cfg := js(t, `{`+w+`,"spec":{"size":"big"}}`)
	opts := patch.ApplyOptions{Manager: "alice", LiveManaged: s.managed}
	want, wantEntries, err := s.p.Apply(s.obj, cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	if opts.LiveObject, err = patch.DecodeObjectWithoutManagedFields(s.obj); err != nil {
		t.Fatal(err)
	}
	got, entries, err := s.p.Apply(s.obj, cfg, opts)
	if err != nil || string(got) != string(want) || fieldsOf(entries) != fieldsOf(wantEntries) {
		t.Errorf("with the decoded form: %s, %v\nwant %s", got, err, want)
	}
	opts.LiveObject, _ = patch.DecodeObjectWithoutManagedFields(s.obj)
	opts.LiveObject["status"] = map[string]any{"readyReplicas": int64(7)}
	got, _, err = s.p.Apply(s.obj, cfg, opts)
	if err != nil || !strings.Contains(string(got), `"readyReplicas":7`) {
		t.Errorf("the form given was not applied to: %s, %v", got, err)
	}
}
