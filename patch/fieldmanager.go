package patch

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/patch/internal/fastfields"
	"github.com/kapi-dev/kapi/schema"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/merge"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// DefaultMaxUpdateManagers is how many Update entries an object keeps
// before the oldest are merged into "ancient-changes", as in kube.
const DefaultMaxUpdateManagers = 10

// Names of the synthetic managers kube-apiserver records.
const (
	// BeforeFirstApplyManager owns the fields an object already had when
	// it was first applied to without managedFields.
	BeforeFirstApplyManager = "before-first-apply"
	// AncientChangesManager collects the oldest Update entries beyond
	// the cap.
	AncientChangesManager = "ancient-changes"
	// kubectlManager is the manager whose applies upgrade from, and keep
	// up to date, kubectl's client-side last-applied annotation.
	kubectlManager = "kubectl"
	// currentOperation is the temporary manager of one update.
	currentOperation = "current-operation"
)

// FieldManagerOptions configures a [FieldManager].
type FieldManagerOptions struct {
	// Group, Version and Kind of the objects, e.g. stable.example.com, v1,
	// Widget. Version and Kind are required; entries record
	// Group/Version as their apiVersion.
	Group, Version, Kind string

	// ResetFields lists, per subresource ("" for the main resource), the
	// top-level fields a write through it cannot change because the
	// kind's strategy resets them, as dotted paths ("status", "spec",
	// "metadata.labels"). They are kept out of managedFields, as kube's
	// GetResetFields does: a kind with a status subresource resets
	// "status" on the main resource and "spec" on status.
	ResetFields map[string][]string

	// MaxUpdateManagers caps the Update entries; 0 means
	// [DefaultMaxUpdateManagers].
	MaxUpdateManagers int

	// Now returns the current time; nil means time.Now. Entries record it
	// to the second.
	Now func() time.Time

	// Versions describes the kind's other versions, for a kind served in
	// several; nil drops the entries recorded in another version.
	Versions *Versions
}

// Versions lets a field manager keep the entries other versions of its
// kind recorded: as kube-apiserver does, the objects are converted to an
// entry's version to compare its fields there, so that a field set
// through one version conflicts with an apply through another.
type Versions struct {
	// Schemas are the schemas of every version of the kind, by apiVersion
	// ("stable.example.com/v1beta1").
	Schemas map[string]*schema.Schema
	// Convert returns obj (decoded JSON, its apiVersion naming its
	// version) in the version toAPIVersion, with that apiVersion. It must
	// not change obj.
	Convert func(obj map[string]any, toAPIVersion string) (map[string]any, error)
}

// FieldManager tracks which manager owns which fields of one kind's
// objects and merges server-side apply configurations, with
// sigs.k8s.io/structured-merge-diff. Build one per kind and version at
// registration with [NewFieldManager]; it is safe for concurrent use.
type FieldManager struct {
	pt       typed.ParseableType
	gvk      meta.GroupVersionKind
	version  fieldpath.APIVersion
	updaters map[string]*merge.Updater // by subresource
	def      *merge.Updater
	strip    *fieldpath.Set
	resets   map[string]*fieldpath.Set // ResetFields, by subresource
	// resetNames and stripNames are resets and strip as field names, for
	// writing a create's entry straight from the object.
	resetNames map[string]*fastfields.Names
	stripNames *fastfields.Names
	max        int
	now        func() time.Time
	fast       fastfields.Fields
	// multiVersion is set when entries of other versions are kept: the
	// fast paths, which drop them, are not taken for objects having any.
	multiVersion bool
	// generalOnly turns the shortcuts of ownedUpdate and createdEntries
	// off, for tests that compare them with the general path.
	generalOnly bool
	sets        *setCache
	// createdSize is the length of the last FieldsV1 createdEntries
	// wrote, the room it gives the next.
	createdSize atomic.Int64
}

// NewFieldManager converts the kind's schema with [SMDSchema] once and
// returns its field manager. A nil schema treats objects as kube treats
// kinds without one: maps granular, lists atomic.
func NewFieldManager(s *schema.Schema, opts FieldManagerOptions) (*FieldManager, error) {
	if opts.Version == "" || opts.Kind == "" {
		return nil, errors.New("patch: FieldManagerOptions needs a Version and a Kind")
	}
	pt, err := SMDSchema(s)
	if err != nil {
		return nil, err
	}
	gvk := meta.GroupVersionKind{Group: opts.Group, Version: opts.Version, Kind: opts.Kind}
	version := fieldpath.APIVersion(gvk.GroupVersion().String())
	var conv merge.Converter = sameVersion{version: version}
	if opts.Versions != nil {
		vc, err := newVersionConverter(version, pt, opts.Versions)
		if err != nil {
			return nil, err
		}
		conv = vc
	}
	m := &FieldManager{
		pt: pt, gvk: gvk, version: version,
		fast:       fastfields.Fields{Type: pt, Version: version},
		updaters:   map[string]*merge.Updater{},
		resets:     map[string]*fieldpath.Set{},
		resetNames: map[string]*fastfields.Names{},
		sets:       newSetCache(pt),
		def:        (&merge.UpdaterBuilder{Converter: conv}).BuildUpdater(),
		strip:      stripSet(),
		max:        opts.MaxUpdateManagers,
		now:        opts.Now,
	}
	if m.max <= 0 {
		m.max = DefaultMaxUpdateManagers
	}
	m.stripNames, _ = fastfields.NamesOf(m.strip)
	m.multiVersion = opts.Versions != nil
	if m.now == nil {
		m.now = time.Now
	}
	for sub, paths := range opts.ResetFields {
		set := fieldpath.NewSet()
		for _, p := range paths {
			parts := strings.Split(p, ".")
			elems := make([]any, len(parts))
			for i, s := range parts {
				if s == "" {
					return nil, fmt.Errorf("patch: reset field %q: empty field name", p)
				}
				elems[i] = s
			}
			fp, err := fieldpath.MakePath(elems...)
			if err != nil {
				return nil, fmt.Errorf("patch: reset field %q: %v", p, err)
			}
			set.Insert(fp)
		}
		m.resets[sub] = set
		m.resetNames[sub], _ = fastfields.NamesOf(set)
		filter := map[fieldpath.APIVersion]fieldpath.Filter{version: fieldpath.NewExcludeSetFilter(set)}
		m.updaters[sub] = (&merge.UpdaterBuilder{Converter: conv, IgnoreFilter: filter}).BuildUpdater()
	}
	return m, nil
}

// APIVersion returns the group/version entries are recorded in.
func (m *FieldManager) APIVersion() string { return string(m.version) }

func (m *FieldManager) updater(subresource string) *merge.Updater {
	if u, ok := m.updaters[subresource]; ok {
		return u
	}
	return m.def
}

func (m *FieldManager) timeNow() *meta.Time {
	t := meta.NewTime(m.now())
	return &t
}

// managerID returns the identifier of manager for an operation through
// subresource, "unknown" standing for an empty name as in kube.
func (m *FieldManager) managerID(manager string, op meta.ManagedFieldsOperationType, subresource string) (string, error) {
	if manager == "" {
		manager = "unknown"
	}
	id, err := managerID(meta.ManagedFieldsEntry{Manager: manager, Operation: op, APIVersion: string(m.version), Subresource: subresource})
	if err != nil {
		return "", fmt.Errorf("failed to build manager identifier: %v", err)
	}
	return id, nil
}

// sameVersion is the structured-merge-diff converter of a kind served in
// one version: entries recorded in another version cannot be converted
// and are dropped, as kube drops entries of versions no longer served.
type sameVersion struct{ version fieldpath.APIVersion }

var errMissingVersion = errors.New("patch: no conversion to that version")

func (c sameVersion) Convert(obj *typed.TypedValue, v fieldpath.APIVersion) (*typed.TypedValue, error) {
	if v == c.version {
		return obj, nil
	}
	return nil, errMissingVersion
}

func (c sameVersion) IsMissingVersionError(err error) bool { return errors.Is(err, errMissingVersion) }
