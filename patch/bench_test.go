package patch_test

import (
	"testing"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/patch"
)

// The benchmarks patch the ~1.9 KB Widget of widgetDoc the way a
// controller would: scale it and touch one port.

func benchPatcher(b *testing.B) *patch.Patcher {
	return widgetPatcher(b, newClock())
}

func BenchmarkMergePatch(b *testing.B) {
	p := benchPatcher(b)
	doc := widgetDoc()
	body := []byte(`{"spec":{"replicas":4,"ports":[{"name":"http","port":8080,"protocol":"TCP"},{"name":"https","port":443,"protocol":"TCP"}]}}`)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := p.Patch(patch.MergePatchType, doc, body); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkJSONPatch(b *testing.B) {
	p := benchPatcher(b)
	doc := widgetDoc()
	body := []byte(`[{"op":"test","path":"/spec/replicas","value":3},{"op":"replace","path":"/spec/replicas","value":4},{"op":"replace","path":"/spec/ports/0/port","value":8080}]`)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := p.Patch(patch.JSONPatchType, doc, body); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStrategicMergePatch(b *testing.B) {
	p := benchPatcher(b)
	doc := widgetDoc()
	body := []byte(`{"spec":{"replicas":4,"ports":[{"name":"http","port":8080}]}}`)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := p.Patch(patch.StrategicMergePatchType, doc, body); err != nil {
			b.Fatal(err)
		}
	}
}

// trackedWidget returns the stored Widget with the managedFields a create
// by "creator" gives it.
func trackedWidget(b *testing.B, p *patch.Patcher) ([]byte, []meta.ManagedFieldsEntry) {
	doc := widgetDoc()
	managed, err := p.Update(nil, doc, patch.UpdateOptions{Manager: "creator"})
	if err != nil {
		b.Fatal(err)
	}
	return doc, managed
}

func BenchmarkUpdateManagedFields(b *testing.B) {
	p := benchPatcher(b)
	doc, managed := trackedWidget(b, p)
	updated, err := p.Patch(patch.StrategicMergePatchType, doc, []byte(`{"spec":{"replicas":4,"ports":[{"name":"http","port":8080}]}}`))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := p.Update(doc, updated, patch.UpdateOptions{Manager: "scaler", LiveManaged: managed, NewManaged: managed}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUpdateOwnManagedFields records an update by the Widget's
// creator of a field it owns, the request carrying the stored entries, as
// a controller's read-modify-write does.
func BenchmarkUpdateOwnManagedFields(b *testing.B) {
	p := benchPatcher(b)
	doc, managed := trackedWidget(b, p)
	updated, err := p.Patch(patch.MergePatchType, doc, []byte(`{"spec":{"replicas":4}}`))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := p.Update(doc, updated, patch.UpdateOptions{Manager: "creator", LiveManaged: managed, NewManaged: managed}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkApply(b *testing.B) {
	p := benchPatcher(b)
	doc, managed := trackedWidget(b, p)
	cfg := []byte(`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"widget-0001","namespace":"default"},"spec":{"replicas":4,"ports":[{"name":"http","port":8080,"protocol":"TCP"}]}}`)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := p.Apply(doc, cfg, patch.ApplyOptions{Manager: "scaler", Force: true, LiveManaged: managed}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCreateManagedFields records the create of the Widget (the
// walk of package fastfields; its BenchmarkCreated compares it with the
// general path).
func BenchmarkCreateManagedFields(b *testing.B) {
	p := benchPatcher(b)
	doc := widgetDoc()
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := p.Update(nil, doc, patch.UpdateOptions{Manager: "creator"}); err != nil {
			b.Fatal(err)
		}
	}
}
