package patch_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/patch"
)

func TestUpdateTracksCreateAndChanges(t *testing.T) {
	s := newStore(t)
	s.update("creator", "", `{`+w[:len(w)-1]+`,"labels":{"a":"1"}},"spec":{"replicas":1,"color":"blue"}}`)
	s.wantFields(`
creator Update stable.example.com/v1 {"f:metadata":{"f:labels":{".":{},"f:a":{}}},"f:spec":{".":{},"f:color":{},"f:replicas":{}}}
`)
	created := *s.managed[0].Time
	if !created.Equal(s.clock.now.Truncate(time.Second)) {
		t.Errorf("time %v", created)
	}
	// A write that changes nothing leaves the entries alone.
	s.update("creator", "", `{`+w[:len(w)-1]+`,"labels":{"a":"1"}},"spec":{"replicas":1,"color":"blue"}}`)
	s.update("someone", "", `{`+w[:len(w)-1]+`,"labels":{"a":"1"}},"spec":{"replicas":1,"color":"blue"}}`)
	if len(s.managed) != 1 || !s.managed[0].Time.Equal(created.Time) {
		t.Errorf("no-op writes changed the entries:\n%s", fieldsOf(s.managed))
	}
	// Changing a field moves it; removing one drops it from its owner.
	s.mustApply("applier", "", false, `{`+w+`,"spec":{"size":"big"}}`)
	s.update("scaler", "", `{`+w[:len(w)-1]+`,"labels":{"a":"1"}},"spec":{"replicas":5,"color":"blue"}}`)
	s.wantFields(`
creator Update stable.example.com/v1 {"f:metadata":{"f:labels":{".":{},"f:a":{}}},"f:spec":{".":{},"f:color":{}}}
scaler Update stable.example.com/v1 {"f:spec":{"f:replicas":{}}}
`)
}

func TestUpdateOfUntrackedObjectStaysUntracked(t *testing.T) {
	s := newStore(t)
	s.obj = stamp(t, js(t, `{`+w+`,"spec":{"color":"blue"}}`))
	s.update("someone", "", `{`+w+`,"spec":{"color":"red"}}`)
	if s.managed != nil {
		t.Errorf("entries %s", fieldsOf(s.managed))
	}
}

func TestUpdateResetsManagedFields(t *testing.T) {
	for name, sent := range map[string][]meta.ManagedFieldsEntry{
		"empty list":        {},
		"one empty entry":   {{}},
		"absent keeps them": nil,
	} {
		t.Run(name, func(t *testing.T) {
			s := newStore(t)
			s.update("creator", "", `{`+w+`,"spec":{"color":"blue"}}`)
			obj := stamp(t, js(t, `{`+w+`,"spec":{"color":"red"}}`))
			entries, err := s.p.Update(s.obj, obj, patch.UpdateOptions{Manager: "editor", LiveManaged: s.managed, NewManaged: sent})
			if err != nil {
				t.Fatal(err)
			}
			if sent == nil {
				if len(entries) != 2 {
					t.Errorf("entries dropped:\n%s", fieldsOf(entries))
				}
				return
			}
			if entries != nil {
				t.Errorf("not reset:\n%s", fieldsOf(entries))
			}
		})
	}
}

func TestUpdateTakesClientEntries(t *testing.T) {
	s := newStore(t)
	s.update("a", "", `{`+w+`,"spec":{"color":"blue"}}`)
	s.update("b", "", `{`+w+`,"spec":{"color":"blue","size":"big"}}`)
	obj := stamp(t, js(t, `{`+w+`,"spec":{"color":"blue","size":"big"}}`))
	// A client may edit the entries, here dropping b's.
	entries, err := s.p.Update(s.obj, obj, patch.UpdateOptions{Manager: "editor", LiveManaged: s.managed, NewManaged: s.managed[:1]})
	if err != nil {
		t.Fatal(err)
	}
	if got := fieldsOf(entries); got != fieldsOf(s.managed[:1]) {
		t.Errorf("entries:\n%s", got)
	}
	// Entries that do not decode are ignored in favour of the stored ones.
	bad := []meta.ManagedFieldsEntry{{Manager: "x", Operation: "Bogus", APIVersion: "v1", FieldsType: "FieldsV1"}}
	entries, _ = s.p.Update(s.obj, obj, patch.UpdateOptions{Manager: "editor", LiveManaged: s.managed, NewManaged: bad})
	if fieldsOf(entries) != fieldsOf(s.managed) {
		t.Errorf("bad entries taken:\n%s", fieldsOf(entries))
	}
	// Subresources always start from the stored entries.
	entries, _ = s.p.Update(s.obj, obj, patch.UpdateOptions{Manager: "editor", Subresource: "status", LiveManaged: s.managed, NewManaged: []meta.ManagedFieldsEntry{}})
	if fieldsOf(entries) != fieldsOf(s.managed) {
		t.Errorf("status write reset entries:\n%s", fieldsOf(entries))
	}
}

func TestUpdateCapsUpdateManagers(t *testing.T) {
	s := newStore(t)
	s.update("m00", "", `{`+w+`,"spec":{"tags":["t00"]}}`)
	tags := []string{`"t00"`}
	for i := 1; i <= 11; i++ {
		tags = append(tags, fmt.Sprintf(`"t%02d"`, i))
		s.update(fmt.Sprintf("m%02d", i), "", `{`+w+`,"spec":{"tags":[`+strings.Join(tags, ",")+`]}}`)
	}
	if len(s.managed) != 10 {
		t.Fatalf("%d entries:\n%s", len(s.managed), fieldsOf(s.managed))
	}
	first := s.managed[0]
	if first.Manager != patch.AncientChangesManager || first.Operation != meta.ManagedFieldsOperationUpdate ||
		string(first.FieldsV1.Raw) != `{"f:spec":{".":{},"f:tags":{".":{},"v:\"t00\"":{},"v:\"t01\"":{},"v:\"t02\"":{}}}}` {
		t.Errorf("oldest entry %s", fieldsOf(s.managed[:1]))
	}
}

func TestUpdateErrorKeepsEntries(t *testing.T) {
	s := newStore(t)
	s.update("a", "", `{`+w+`,"spec":{"color":"blue"}}`)
	obj := stamp(t, js(t, `{`+w+`,"spec":{"color":"blue","bogus":1}}`))
	entries, err := s.p.Update(s.obj, obj, patch.UpdateOptions{Manager: "b", LiveManaged: s.managed, NewManaged: s.managed})
	if err == nil || fieldsOf(entries) != fieldsOf(s.managed) {
		t.Errorf("err %v, entries:\n%s", err, fieldsOf(entries))
	}
}

func TestUpdateUnknownManager(t *testing.T) {
	s := newStore(t)
	s.update("", "", `{`+w+`,"spec":{"color":"blue"}}`)
	if len(s.managed) != 1 || s.managed[0].Manager != "unknown" {
		t.Errorf("entries:\n%s", fieldsOf(s.managed))
	}
}

func TestManagerName(t *testing.T) {
	for _, tc := range []struct{ fieldManager, ua, want string }{
		{"my-controller", "kubectl/v1.31.0", "my-controller"},
		{"", "kubectl/v1.31.0 (linux/amd64) kubernetes/abcdef", "kubectl"},
		{"", "kube-controller-manager/v1.31.0 (linux/amd64)/leader-election", "kube-controller-manager"},
		{"", "curl", "curl"},
		{"", "Go-http-client/1.1", "Go-http-client"},
		{"", "tab\there/1", "tabhere"},
		{"", "", ""},
		{"", strings.Repeat("é", 100), strings.Repeat("é", 64)},
	} {
		if got := patch.ManagerName(tc.fieldManager, tc.ua); got != tc.want {
			t.Errorf("ManagerName(%q, %q) = %q, want %q", tc.fieldManager, tc.ua, got, tc.want)
		}
	}
}

func TestSortManagedFields(t *testing.T) {
	at := func(s int) *meta.Time { t := meta.NewTime(time.Unix(int64(s), 0)); return &t }
	entries := []meta.ManagedFieldsEntry{
		{Manager: "b", Operation: "Update", Time: at(1)},
		{Manager: "a", Operation: "Update", Time: at(2)},
		{Manager: "z", Operation: "Apply", Time: at(5)},
		{Manager: "a", Operation: "Update", Time: at(1), Subresource: "status"},
		{Manager: "a", Operation: "Update", Time: at(1)},
		{Manager: "y", Operation: "Apply"},
	}
	patch.SortManagedFields(entries)
	var got []string
	for _, e := range entries {
		got = append(got, e.Manager+"/"+e.Subresource)
	}
	if strings.Join(got, " ") != "y/ z/ a/ a/status b/ a/" {
		t.Errorf("order %v", got)
	}
}
