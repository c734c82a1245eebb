package patch

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/kapi-dev/kapi/schema"
)

// The patch media types (the Content-Type of a PATCH request).
const (
	JSONPatchType           = "application/json-patch+json"
	MergePatchType          = "application/merge-patch+json"
	StrategicMergePatchType = "application/strategic-merge-patch+json"
	ApplyPatchType          = "application/apply-patch+yaml"
	// ApplyCBORPatchType is an apply configuration in CBOR; the server
	// converts it to JSON and applies it as it applies YAML.
	ApplyCBORPatchType = "application/apply-patch+cbor"
)

// Config describes one kind (at one version) to a [Patcher].
type Config struct {
	// Schema is the kind's schema; nil merges every object and replaces
	// every list.
	Schema *schema.Schema

	// Group, Version and Kind name the kind; Version and Kind are
	// required.
	Group, Version, Kind string

	// NoStrategicMerge refuses strategic merge patches with 415, as
	// kube-apiserver does for kinds defined at run time
	// (CustomResourceDefinitions): their schemas carry no patch
	// strategies clients can rely on.
	NoStrategicMerge bool

	// ResetFields, MaxUpdateManagers, Now and Versions configure the
	// field manager; see [FieldManagerOptions].
	ResetFields       map[string][]string
	MaxUpdateManagers int
	Now               func() time.Time
	Versions          *Versions

	// ScaleReplicasPath is the dotted path of the replicas field a /scale
	// subresource reads and writes (e.g. ".spec.replicas"); set it to
	// track writes through /scale with [Patcher.UpdateScale].
	ScaleReplicasPath string

	// JSONPatchMaxCopyBytes bounds the growth from JSON patch copy
	// operations; 0 means [DefaultJSONPatchMaxCopyBytes].
	JSONPatchMaxCopyBytes int64
}

// Patcher applies every kind of patch to one kind's objects and tracks
// their managedFields. Build one per kind and version at registration; it
// is safe for concurrent use.
type Patcher struct {
	*FieldManager
	schema  *schema.Schema
	smp     bool
	maxCopy int64
	scale   *scaleFields // nil without a /scale subresource
}

// New builds the Patcher of a kind, converting its schema for server-side
// apply once.
func New(cfg Config) (*Patcher, error) {
	fm, err := NewFieldManager(cfg.Schema, FieldManagerOptions{
		Group: cfg.Group, Version: cfg.Version, Kind: cfg.Kind,
		ResetFields: cfg.ResetFields, MaxUpdateManagers: cfg.MaxUpdateManagers, Now: cfg.Now,
		Versions: cfg.Versions,
	})
	if err != nil {
		return nil, err
	}
	p := &Patcher{FieldManager: fm, schema: cfg.Schema, smp: !cfg.NoStrategicMerge, maxCopy: cfg.JSONPatchMaxCopyBytes}
	if cfg.ScaleReplicasPath != "" {
		opts := FieldManagerOptions{MaxUpdateManagers: cfg.MaxUpdateManagers, Now: cfg.Now}
		if p.scale, err = newScaleFields(cfg.ScaleReplicasPath, opts); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// PatchTypes lists the patch media types the kind accepts, in
// kube-apiserver's order; it is the list a 415 names and discovery
// publishes.
func (p *Patcher) PatchTypes() []string {
	if p.smp {
		return []string{JSONPatchType, MergePatchType, StrategicMergePatchType, ApplyPatchType, ApplyCBORPatchType}
	}
	return []string{JSONPatchType, MergePatchType, ApplyPatchType, ApplyCBORPatchType}
}

// IsApply reports whether a patch media type is a server-side apply, in
// YAML or CBOR.
func IsApply(mediaType string) bool {
	return mediaType == ApplyPatchType || mediaType == ApplyCBORPatchType
}

// MediaType strips parameters from a Content-Type as kube-apiserver does
// before matching patch types: everything from the first ";".
func MediaType(contentType string) string {
	if i := strings.Index(contentType, ";"); i > 0 {
		return contentType[:i]
	}
	return contentType
}

// Patch applies a JSON, merge or strategic merge patch of the given
// Content-Type to the JSON object doc; see [JSONPatch], [MergePatch] and
// [StrategicMergePatch]. A Content-Type the kind does not accept is a 415
// listing [Patcher.PatchTypes]. Apply patches go through
// [FieldManager.Apply] instead.
func (p *Patcher) Patch(contentType string, doc, patch []byte) ([]byte, error) {
	switch ct := MediaType(contentType); ct {
	case JSONPatchType:
		return JSONPatch(doc, patch, p.maxCopy)
	case MergePatchType:
		return MergePatch(doc, patch)
	case StrategicMergePatchType:
		if p.smp {
			return StrategicMergePatch(doc, patch, p.schema)
		}
	case ApplyPatchType, ApplyCBORPatchType:
		return nil, internal(fmt.Errorf("patch: %s goes through Apply", ct))
	}
	return nil, UnsupportedPatchType(contentType, p.PatchTypes())
}

// fieldManagerMaxLength is the longest field manager name kube accepts.
const fieldManagerMaxLength = 128

// ManagerName returns the manager a write is recorded under, as
// kube-apiserver derives it: the fieldManager query parameter when set,
// otherwise the User-Agent up to its first "/" (kubectl/v1.31.0 (linux)
// gives "kubectl"), without unprintable characters and cut to 128 bytes.
func ManagerName(fieldManager, userAgent string) string {
	if fieldManager != "" {
		return fieldManager
	}
	prefix, _, _ := strings.Cut(userAgent, "/")
	var b strings.Builder
	for _, r := range prefix {
		if !unicode.IsPrint(r) {
			continue
		}
		if b.Len()+utf8.RuneLen(r) > fieldManagerMaxLength {
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}
