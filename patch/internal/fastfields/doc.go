// Package fastfields builds the managedFields sets of creates and updates
// by walking decoded objects along their structured-merge-diff schema,
// instead of converting them to typed values and comparing those as
// sigs.k8s.io/structured-merge-diff's merge.Updater does. On a Widget that
// conversion and comparison is most of the cost of recording a write.
//
// It is a performance shortcut of package patch's field manager, kept
// apart so that its one claim is checked in one place: wherever a walk
// answers, its answer is the Updater's, set for set; anything the walk
// does not handle plainly (a value of the wrong type, a field the schema
// does not declare, a duplicate or keyless list entry, a null or a change
// of kind in an untyped value) ends it with ok false, and the caller takes
// the general path, which reports or handles it as before.
// TestCreatedMatchesUpdater, TestCreatedRandom, FuzzCreated,
// TestUpdatedMatchesUpdater, TestUpdatedRandom and FuzzUpdated compare the
// two on hand-picked, random and fuzzed objects; wherever they check a
// create, they also check that [Fields.CreatedJSON] writes what encoding
// the set gives, and that [Fields.CreatedJSONMeta] writes the same from
// the object's metadata typed. [Fields.Changes] is the walk of [Fields.Changed] telling
// a visitor of each change instead of building the sets. The walk takes
// a value equal on both sides as unchanged after checking that it would
// walk it; TestSameMatchesWalk compares that check with walking the
// value side by side.
package fastfields

import (
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// UntypedAtomic names the schema's atomic value of any type, as
// kube-openapi's schemaconv (and package patch's SMDSchema) name it: its
// inside is not checked.
const UntypedAtomic = "__untyped_atomic_"

// Fields walks the objects of one kind and version.
type Fields struct {
	// Type is the kind's schema and the type of its objects.
	Type typed.ParseableType
	// Version is the apiVersion the sets are recorded in.
	Version fieldpath.APIVersion
}
