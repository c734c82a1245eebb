package patch_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/patch"
	"github.com/kapi-dev/kapi/status"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// checkResult fails unless err carries a Status that is not an
// InternalError (what an error without a Status, or a panic, becomes), or
// out is a JSON object. kube's own reason-less 500s (a test of the whole
// document without a value) pass.
func checkResult(t *testing.T, out []byte, err error) {
	t.Helper()
	if err != nil {
		st := status.FromError(err)
		if st.Code == 0 || st.Reason == meta.StatusReasonInternalError {
			t.Fatalf("client input answered %d %s: %v", st.Code, st.Reason, err)
		}
		return
	}
	var m map[string]any
	if jerr := json.Unmarshal(out, &m); jerr != nil || m == nil {
		t.Fatalf("result is not a JSON object: %v: %q", jerr, out)
	}
}

func FuzzJSONPatch(f *testing.F) {
	f.Add([]byte(jsonPatchDoc), []byte(`[{"op":"add","path":"/spec/tags/-","value":"z"}]`))
	f.Add([]byte(jsonPatchDoc), []byte(`[{"op":"move","from":"/spec/ports/0","path":"/spec/ports/-1"},{"op":"test","path":"/spec/replicas","value":3}]`))
	f.Add([]byte(jsonPatchDoc), []byte(`[{"op":"copy","from":"/spec","path":"/spec/x"},{"op":"remove","path":"/metadata/labels/a"}]`))
	f.Add([]byte(`{"a":[1,[2,{"b":null}]]}`), []byte(`[{"op":"replace","path":"/a/1/1/b","value":{"c":1}},{"op":"replace","path":""}]`))
	f.Add(widgetDoc(), []byte(`[{"op":"replace","path":"/spec/ports/0/port","value":81}]`))
	f.Fuzz(func(t *testing.T, doc, p []byte) {
		if !json.Valid(doc) || bytes.TrimSpace(doc)[0] != '{' {
			return
		}
		out, err := patch.JSONPatch(doc, p, 1<<16)
		checkResult(t, out, err)
	})
}

func FuzzMergePatch(f *testing.F) {
	f.Add([]byte(`{"a":"b","c":{"d":1}}`), []byte(`{"a":null,"c":{"e":[null,{"f":null}]}}`))
	f.Add(widgetDoc(), []byte(`{"metadata":{"labels":{"app":null}},"spec":{"ports":[]}}`))
	f.Add([]byte(`{"a":1}`), []byte(`[1]`))
	f.Add([]byte(`{"metadata":{"name":"a","managedFields":[{"manager":"m"}]},"spec":{"x":1}}`), []byte(`{"metadata":{"labels":{"a":"b"}}}`))
	f.Fuzz(func(t *testing.T, doc, p []byte) {
		var m map[string]any
		if json.Unmarshal(doc, &m) != nil || m == nil {
			return
		}
		out, err := patch.MergePatch(doc, p)
		checkResult(t, out, err)
		checkWithoutManagedFields(t, doc, p, out, err)
	})
}

// checkWithoutManagedFields checks MergePatchWithoutManagedFields against
// MergePatch's result out (or error err) on doc.
func checkWithoutManagedFields(t *testing.T, doc, p, out []byte, err error) {
	got, live, ok, gerr := patch.MergePatchWithoutManagedFields(doc, p)
	if !ok {
		return
	}
	if gerr == nil {
		if want, _ := patch.DecodeObjectWithoutManagedFields(doc); !cmp.Equal(live, want) {
			t.Fatalf("document after the merge (-want +got):\n%s", cmp.Diff(want, live))
		}
	}
	if (err == nil) != (gerr == nil) {
		t.Fatalf("error %v, MergePatch's %v", gerr, err)
	}
	if err != nil {
		return
	}
	want, _ := patch.DecodeObjectWithoutManagedFields(out)
	have, derr := patch.DecodeObject(got)
	if derr != nil {
		t.Fatalf("result %s: %v", got, derr)
	}
	if diff := cmp.Diff(want, have); diff != "" {
		t.Fatalf("result (-MergePatch's without managedFields +got):\n%s", diff)
	}
}

func FuzzStrategicMergePatch(f *testing.F) {
	f.Add([]byte(`{"spec":{"containers":[{"name":"a","env":[{"name":"X"}]}],"tags":["a"]}}`),
		[]byte(`{"spec":{"$setElementOrder/containers":[{"name":"b"},{"name":"a"}],"containers":[{"name":"b"},{"$patch":"delete","name":"a"}],"$deleteFromPrimitiveList/tags":["a"],"tags":["c"]}}`))
	f.Add([]byte(`{"spec":{"volume":{"name":"v","hostPath":"/"}}}`), []byte(`{"spec":{"volume":{"$retainKeys":["emptyDir"],"emptyDir":{}},"labels":{"$patch":"replace"}}}`))
	f.Add([]byte(`{"spec":{"containers":[{"name":"a"}],"matrix":[]}}`), []byte(`{"spec":{"containers":[{"$patch":"replace"},{"name":"z"}],"matrix":[["x"]]}}`))
	f.Add(widgetDoc(), []byte(`{"spec":{"ports":[{"name":"http","port":8080},{"name":"new","port":1}]}}`))
	s := smpSchema(f)
	f.Fuzz(func(t *testing.T, doc, p []byte) {
		var m map[string]any
		if json.Unmarshal(doc, &m) != nil || m == nil {
			return
		}
		out, err := patch.StrategicMergePatch(doc, p, s)
		checkResult(t, out, err)
	})
}

func FuzzApply(f *testing.F) {
	f.Add([]byte(`{`+w+`,"spec":{"replicas":3,"ports":[{"name":"http","port":80}]}}`),
		[]byte(`{`+w+`,"spec":{"replicas":5,"tags":["a"]}}`), "kubectl", false, false)
	f.Add([]byte(`{`+w+`,"spec":{"color":"blue"},"status":{"readyReplicas":1}}`),
		[]byte("apiVersion: stable.example.com/v1\nkind: Widget\nmetadata:\n  name: w\nstatus:\n  conditions:\n  - type: Ready\n    status: \"True\"\n"), "kubelet", true, true)
	f.Add([]byte(``), []byte(`{`+w+`,"spec":{"ports":[{"name":"a","port":1},{"name":"a","port":2}]}}`), "x", false, false)
	// One patcher serves every input, as the server builds one per kind:
	// building it (the schema and its structured-merge-diff form) costs
	// far more than an apply, and per input it left the fuzzer at a few
	// executions a second, too slow to minimize what it found.
	p := widgetPatcher(f, newClock())
	f.Fuzz(func(t *testing.T, first, second []byte, manager string, force, status bool) {
		sub := ""
		if status {
			sub = "status"
		}
		// The first configuration creates the object (by apply), the
		// second is applied on top.
		live, managed, err := p.Apply(nil, first, patch.ApplyOptions{Manager: "creator"})
		if err != nil {
			checkResult(t, live, err)
			live, managed = nil, nil
		}
		out, entries, err := p.Apply(live, second, patch.ApplyOptions{Manager: manager, Subresource: sub, Force: force, LiveManaged: managed})
		checkResult(t, out, err)
		if err != nil {
			return
		}
		for _, e := range entries {
			var set fieldpath.Set
			if e.FieldsType != "FieldsV1" || e.FieldsV1 == nil || set.FromJSON(bytes.NewReader(e.FieldsV1.Raw)) != nil {
				t.Fatalf("entry does not parse back: %+v", e)
			}
		}
		// The entries survive the wire and a repeated apply is a no-op.
		b, _ := json.Marshal(entries)
		var back []meta.ManagedFieldsEntry
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		again, _, err := p.Apply(out, second, patch.ApplyOptions{Manager: manager, Subresource: sub, Force: force, LiveManaged: back})
		if err != nil {
			t.Fatalf("re-apply: %v", err)
		}
		if !jsonSame(out, again) {
			t.Fatalf("re-apply changed the object:\n%s\n%s", out, again)
		}
	})
}

func jsonSame(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return bytes.Equal(xb, yb)
}
