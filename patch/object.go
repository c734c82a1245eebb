package patch

import (
	"fmt"
	"strings"

	"github.com/kapi-dev/kapi/meta"
)

// metadataOf returns the metadata object of obj, or nil.
func metadataOf(obj map[string]any) map[string]any {
	m, _ := obj["metadata"].(map[string]any)
	return m
}

// metaString returns metadata.<field> of obj when it is a string.
func metaString(obj map[string]any, field string) string {
	s, _ := metadataOf(obj)[field].(string)
	return s
}

// removeManagedFields drops metadata.managedFields from obj in place.
func removeManagedFields(obj map[string]any) {
	if md := metadataOf(obj); md != nil {
		delete(md, "managedFields")
	}
}

// hasManagedFields reports whether obj carries metadata.managedFields the
// way kube's unstructured accessor finds them: a list of objects.
func hasManagedFields(obj map[string]any) bool {
	l, ok := metadataOf(obj)["managedFields"].([]any)
	if !ok {
		return false
	}
	for _, e := range l {
		if _, ok := e.(map[string]any); !ok {
			return false
		}
	}
	return true
}

// objectGVK reads apiVersion and kind as kube's unstructured objects do:
// an apiVersion that does not parse leaves only the kind.
func objectGVK(obj map[string]any) meta.GroupVersionKind {
	av, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	gvk := meta.GroupVersionKind{Kind: kind}
	switch strings.Count(av, "/") {
	case 0:
		gvk.Version = av
	case 1:
		gvk.Group, gvk.Version, _ = strings.Cut(av, "/")
	}
	return gvk
}

// gvkString renders a GroupVersionKind as k8s.io/apimachinery's String
// does: "group/version, Kind=Kind".
func gvkString(gvk meta.GroupVersionKind) string {
	return gvk.Group + "/" + gvk.Version + ", Kind=" + gvk.Kind
}

// objectGVKNN names an object in kube's field manager messages:
// "namespace/name; group/version, Kind=Kind".
func objectGVKNN(obj map[string]any) string {
	return fmt.Sprintf("%v/%v; %v", metaString(obj, "namespace"), metaString(obj, "name"), gvkString(objectGVK(obj)))
}

// emptyObject is what kube's creater makes for a kind: only its type.
func (m *FieldManager) emptyObject() map[string]any {
	return map[string]any{"apiVersion": string(m.version), "kind": m.gvk.Kind}
}

// decodeLive parses the stored object; empty means the object does not
// exist yet and gives an empty object of the kind.
func (m *FieldManager) decodeLive(live []byte) (map[string]any, error) {
	return m.decodeLiveWith(live, decodeObject)
}

// decodeLiveWithoutManagedFields is decodeLive followed by
// removeManagedFields, without decoding what it removes.
func (m *FieldManager) decodeLiveWithoutManagedFields(live []byte) (map[string]any, error) {
	return m.decodeLiveWith(live, DecodeObjectWithoutManagedFields)
}

func (m *FieldManager) decodeLiveWith(live []byte, decode func([]byte) (map[string]any, error)) (map[string]any, error) {
	if len(live) == 0 {
		return m.emptyObject(), nil
	}
	obj, err := decode(live)
	if err != nil {
		return nil, fmt.Errorf("failed to decode live object: %v", err)
	}
	if obj == nil {
		return m.emptyObject(), nil
	}
	return obj, nil
}
