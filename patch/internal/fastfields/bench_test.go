package fastfields_test

import (
	"testing"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// BenchmarkCreated records the fields of a create of the Widget by the
// walk and by structured-merge-diff's Updater.
func BenchmarkCreated(b *testing.B) {
	k := newKind(b, widgetSchema(b))
	obj := decode(b, widgetDoc())
	b.Run("path=walk", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, ok := k.fast.Created(obj, k.filters[""]); !ok {
				b.Fatal("the walk declined the Widget")
			}
		}
	})
	b.Run("path=updater", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := k.general(map[string]any{}, obj, fieldpath.ManagedFields{}, ""); err != nil {
				b.Fatal(err)
			}
		}
	})
}
