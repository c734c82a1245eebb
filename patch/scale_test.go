package patch_test

import (
	"testing"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/patch"
)

func scalePatcher(t *testing.T) *patch.Patcher {
	t.Helper()
	p, err := patch.New(patch.Config{
		Schema: widgetSchema(t), Group: "stable.example.com", Version: "v1", Kind: "Widget",
		ScaleReplicasPath: ".spec.replicas", Now: newClock().Now,
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func entry(manager string, op meta.ManagedFieldsOperationType, apiVersion, subresource, fields string) meta.ManagedFieldsEntry {
	t := meta.NewTime(newClock().now)
	return meta.ManagedFieldsEntry{Manager: manager, Operation: op, APIVersion: apiVersion, Subresource: subresource,
		FieldsType: patch.FieldsTypeV1, FieldsV1: &meta.FieldsV1{Raw: []byte(fields)}, Time: &t}
}

func scaleDoc(replicas int) []byte {
	return []byte(`{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"w","uid":"u"},"spec":{"replicas":` +
		string(rune('0'+replicas)) + `},"status":{"replicas":1}}`)
}

func TestUpdateScale(t *testing.T) {
	const v1 = "stable.example.com/v1"
	apply, update := meta.ManagedFieldsOperationApply, meta.ManagedFieldsOperationUpdate
	tests := []struct {
		name      string
		parent    []meta.ManagedFieldsEntry
		live, new int
		want      string
	}{
		{name: "the scaler takes replicas from an applier",
			parent: []meta.ManagedFieldsEntry{entry("user", apply, v1, "", `{"f:spec":{"f:color":{},"f:replicas":{}}}`)},
			live:   3, new: 5,
			want: "user Apply stable.example.com/v1 {\"f:spec\":{\"f:color\":{}}}\n" +
				"hpa Update stable.example.com/v1 /scale {\"f:spec\":{\"f:replicas\":{}}}\n"},
		{name: "an owner of nothing else disappears",
			parent: []meta.ManagedFieldsEntry{entry("user", update, v1, "", `{"f:spec":{"f:replicas":{}}}`),
				entry("other", update, v1, "", `{"f:spec":{"f:size":{}}}`)},
			live: 3, new: 4,
			// The new entry has no time, so it sorts first.
			want: "hpa Update stable.example.com/v1 /scale {\"f:spec\":{\"f:replicas\":{}}}\n" +
				"other Update stable.example.com/v1 {\"f:spec\":{\"f:size\":{}}}\n"},
		{name: "the same replicas moves nothing",
			parent: []meta.ManagedFieldsEntry{entry("user", apply, v1, "", `{"f:spec":{"f:replicas":{}}}`)},
			live:   3, new: 3,
			want: "user Apply stable.example.com/v1 {\"f:spec\":{\"f:replicas\":{}}}\n"},
		{name: "entries of another version are dropped",
			parent: []meta.ManagedFieldsEntry{entry("user", apply, v1, "", `{"f:spec":{"f:replicas":{}}}`),
				entry("old", update, "stable.example.com/v0", "", `{"f:spec":{"f:size":{}}}`)},
			live: 3, new: 3,
			want: "user Apply stable.example.com/v1 {\"f:spec\":{\"f:replicas\":{}}}\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := scalePatcher(t)
			got, err := p.UpdateScale(tc.parent, scaleDoc(tc.live), scaleDoc(tc.new), "hpa")
			if err != nil {
				t.Fatal(err)
			}
			if s := fieldsOf(got); s != tc.want {
				t.Errorf("got\n%swant\n%s", s, tc.want)
			}
		})
	}
}

func TestUpdateScaleWithoutScale(t *testing.T) {
	p := widgetPatcher(t, newClock())
	parent := []meta.ManagedFieldsEntry{entry("user", meta.ManagedFieldsOperationApply, "stable.example.com/v1", "", `{"f:spec":{"f:replicas":{}}}`)}
	got, err := p.UpdateScale(parent, scaleDoc(1), scaleDoc(2), "hpa")
	wantStatus(t, err, 500, "", "...")
	if len(got) != 1 || got[0].Manager != "user" {
		t.Errorf("entries on error: %+v", got)
	}
}
