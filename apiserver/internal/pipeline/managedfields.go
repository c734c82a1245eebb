package pipeline

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"reflect"

	"github.com/kapi-dev/kapi/apiserver/internal/registry"
	"github.com/kapi-dev/kapi/apiserver/internal/schemaplan"
	"github.com/kapi-dev/kapi/apiserver/internal/splice"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/patch"
	"github.com/kapi-dev/kapi/storage"
)

// TrackFunc records a write in obj's managedFields. cur is the stored
// value and old the stored object, both nil on create. The entries obj
// carries on entry are the ones the request sent. It returns the JSON
// forms of obj and old it had to decode, so that validation need not
// encode them again.
type TrackFunc func(cur *storage.KeyValue, obj, old meta.Object) JSONForms

// JSONForms are the JSON forms (as [schemaplan.JSONForm] gives them) of a write's
// objects that recording it decoded, for validation to reuse: obj of the
// object to store, old of the stored object, read from its stored JSON,
// which is what the decoded stored object encodes to (see appendJSON).
// obj is without metadata.managedFields, and so is old unless the kind's
// rules may read them (see oldForm); on a create, obj's
// metadata may hold only the names, all that rules read of it when they
// do not read managedFields (see [TrackCreate]). Either is nil
// when it was not decoded.
type JSONForms struct {
	Object, old map[string]any
	// Encoded is obj's stored value without managedFields, made with
	// obj's form when the resource splices them in (see
	// spliceManagedFields); nil otherwise.
	Encoded []byte
	// objNullFree is set when obj holds no null anywhere: defaulting it
	// for validation then visits only the paths with defaults (see
	// schema.FormDefaulter).
	objNullFree bool
	// Splice is what the write knows of encoded and obj's entries, for
	// splicing them in (see [TrackCreate]); zero otherwise.
	Splice registry.SpliceHints
}

// UpdateTracker records ordinary writes (create, update, JSON, merge and
// strategic merge patches) under manager, as kube-apiserver's
// field manager does with UpdateNoErrors: a failure is logged and the
// stored entries are kept. The write runs in the version of the request,
// so obj's fields are those of the request's version.
func (w *Write) UpdateTracker() TrackFunc {
	return func(cur *storage.KeyValue, obj, old meta.Object) JSONForms {
		live := w.LiveForm
		w.LiveForm = nil
		return trackUpdate(w.Resource, w.Log, cur, obj, old, live, w.Manager, w.Subresource)
	}
}

// trackUpdate records an update of obj, in the resource's version, over
// the stored value cur and object old. It returns the JSON forms of obj
// and, on update, of old, which it reads from cur's JSON unless liveObj,
// that form without managedFields, is not nil.
func trackUpdate(r *registry.Resource, log *slog.Logger, cur *storage.KeyValue, obj, old meta.Object, liveObj map[string]any, manager, subresource string) JSONForms {
	if cur == nil && !r.Kind.CreateFromEmpty {
		if forms, ok := TrackCreate(r, obj, manager, subresource); ok {
			return forms
		}
	}
	var live []byte
	var liveManaged []meta.ManagedFieldsEntry
	var err error
	if cur == nil && r.Kind.CreateFromEmpty {
		// Recorded as a change from the kind's empty object.
		if live, liveObj, err = emptyForm(r); err != nil {
			log.Error("failed to update managedFields", "resource", r.GroupResource, "err", err)
			return JSONForms{}
		}
	}
	if cur != nil {
		// The field manager reads the entries from old, in typed form.
		if liveObj == nil {
			liveObj, _ = r.TypedFormWithoutManagedFields(old)
		}
		if live, err = r.LiveJSON(cur, liveObj != nil); err == nil && liveObj == nil {
			liveObj, err = patch.DecodeObjectWithoutManagedFields(live)
		}
		if err != nil {
			log.Error("failed to update managedFields", "resource", r.GroupResource, "err", err)
			return JSONForms{}
		}
		liveManaged = old.GetObjectMeta().ManagedFields
	}
	m := obj.GetObjectMeta()
	sent := m.ManagedFields
	tree, encoded, err := r.FormWithoutManagedFields(obj)
	if err != nil {
		log.Error("failed to update managedFields", "resource", r.GroupResource, "err", err)
		m.ManagedFields = liveManaged
		return JSONForms{}
	}
	entries, err := r.Patcher.UpdateObject(live, tree, patch.UpdateOptions{
		Manager: manager, Subresource: subresource, LiveManaged: liveManaged, NewManaged: sent,
		LiveObject: liveObj,
	})
	if err != nil {
		log.Error("failed to update managedFields", "resource", r.GroupResource, "namespace", m.Namespace, "name", m.Name, "err", err)
	}
	m.ManagedFields = entries
	if cur == nil {
		return JSONForms{Object: tree, Encoded: encoded}
	}
	return JSONForms{Object: tree, old: oldForm(r, liveObj, liveManaged), Encoded: encoded}
}

// emptyForm is the JSON, and its form, of the kind's empty object (New's)
// in the resource's version, which a create of a kind with
// CreateFromEmpty is recorded as changing.
func emptyForm(r *registry.Resource) ([]byte, map[string]any, error) {
	b, err := json.Marshal(r.NewObject())
	if err != nil {
		return nil, nil, err
	}
	form, err := patch.DecodeObjectWithoutManagedFields(b)
	return b, form, err
}

// oldForm is the JSON form of the stored object for validation, given
// liveObj, its JSON decoded without metadata.managedFields, and entries,
// its managedFields: rules that may read them get them back. It is nil
// when they do not encode; validation then makes the form itself.
func oldForm(r *registry.Resource, liveObj map[string]any, entries []meta.ManagedFieldsEntry) map[string]any {
	if liveObj == nil || len(entries) == 0 || r.Plan == nil || !r.Plan.RulesReadManagedFields {
		return liveObj
	}
	md, ok := liveObj["metadata"].(map[string]any)
	if !ok {
		return liveObj
	}
	x, err := schemaplan.JSONForm(reflect.ValueOf(entries))
	if err != nil {
		return nil
	}
	md["managedFields"] = x
	return liveObj
}

// ruleForms are the JSON forms of a write that no tracker decoded (an
// apply), for a typed kind whose rules read the whole object and old:
// made once here, the stored one from its JSON, rather than each encoded
// field by field for the schema and whole again for the rules. Either is
// nil when it does not decode; validation then makes its own.
func ruleForms(r *registry.Resource, cur *storage.KeyValue, obj, old meta.Object) JSONForms {
	if r.Plan == nil || r.Plan.Unstructured || r.Plan.Rules == nil {
		return JSONForms{}
	}
	var forms JSONForms
	forms.Object, forms.Encoded, _ = r.FormWithoutManagedFields(obj)
	if cur != nil {
		if live, err := r.AppendJSON(nil, cur); err == nil {
			liveObj, _ := r.LiveForm(old, live)
			forms.old = oldForm(r, liveObj, old.GetObjectMeta().ManagedFields)
		}
	}
	return forms
}

// ScaleTracker records writes through /scale under the write's manager the way
// kube-apiserver's scale handler does: ownership of the replicas field
// moves between the object's entries as the write changes the Scale, in
// an entry with subresource "scale". Failures are logged and the stored
// entries kept, as for other writes.
func (w *Write) ScaleTracker() TrackFunc {
	r, manager, log := w.Resource, w.Manager, w.Log
	return func(_ *storage.KeyValue, obj, old meta.Object) JSONForms {
		m := obj.GetObjectMeta()
		parent := old.GetObjectMeta().ManagedFields
		live, err := scaleJSON(r, old)
		if err == nil {
			var next []byte
			if next, err = scaleJSON(r, obj); err == nil {
				m.ManagedFields, err = r.Patcher.UpdateScale(parent, live, next, manager)
			}
		}
		if err != nil {
			log.Error("failed to update managedFields", "resource", r.GroupResource, "namespace", m.Namespace, "name", m.Name, "err", err)
			m.ManagedFields = parent
		}
		return JSONForms{}
	}
}

// scaleJSON is the Scale view of obj, of any version, as JSON.
func scaleJSON(r *registry.Resource, obj meta.Object) ([]byte, error) {
	obj, err := r.InVersion(obj)
	if err != nil {
		return nil, err
	}
	sc, err := r.ScaleOf(obj)
	if err != nil {
		return nil, err
	}
	return json.Marshal(sc)
}

// KeepManagedFieldsTimes reverts an update whose only change is the time
// of managedFields entries, as kube-apiserver's
// IgnoreManagedFieldsTimestampsTransformer does, so that such a write is a
// no-op that keeps the resourceVersion. It reports whether obj now encodes
// as the stored value. pre is obj's encoding without managedFields, or
// nil (see storedValue).
func KeepManagedFieldsTimes(r *registry.Resource, obj, old meta.Object, cur *storage.KeyValue, pre []byte) bool {
	nm, om := obj.GetObjectMeta().ManagedFields, old.GetObjectMeta().ManagedFields
	if len(nm) == 0 || len(nm) != len(om) {
		return false
	}
	changed := false
	for i := range nm {
		if !sameEntryIgnoringTime(nm[i], om[i]) {
			return false
		}
		if !SameTime(nm[i].Time, om[i].Time) {
			changed = true
		}
	}
	if !changed || pre != nil && !splice.MaySplice(pre, cur.Value) {
		// The object changed elsewhere: its value, whatever the times,
		// is not the stored one.
		return false
	}
	times := make([]*meta.Time, len(nm))
	for i := range nm {
		times[i], nm[i].Time = nm[i].Time, om[i].Time
	}
	if b, err := r.StoredValue(obj, pre, registry.SpliceHints{}); err == nil && registry.SameStored(b, cur) {
		return true
	}
	for i := range nm {
		nm[i].Time = times[i]
	}
	return false
}

func sameEntryIgnoringTime(a, b meta.ManagedFieldsEntry) bool {
	if a.Manager != b.Manager || a.Operation != b.Operation || a.APIVersion != b.APIVersion ||
		a.FieldsType != b.FieldsType || a.Subresource != b.Subresource {
		return false
	}
	if a.FieldsV1 == nil || b.FieldsV1 == nil {
		return a.FieldsV1 == b.FieldsV1
	}
	return bytes.Equal(a.FieldsV1.Raw, b.FieldsV1.Raw)
}

func SameTime(a, b *meta.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(b.Time)
}
