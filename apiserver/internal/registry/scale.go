package registry

import (
	"encoding/json"
	"math"
	"strings"

	"github.com/kapi-dev/kapi/apiserver/internal/tables"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// AutoscalingScale is autoscaling/v1 Scale, the view of an object its
// scale subresource serves.
type AutoscalingScale struct {
	meta.TypeMeta `json:",inline"`
	Metadata      meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec          scaleSpec       `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	Status        scaleStatus     `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

type scaleSpec struct {
	Replicas int32 `json:"replicas,omitempty" protobuf:"varint,1,opt,name=replicas"`
}

type scaleStatus struct {
	Replicas int32  `json:"replicas" protobuf:"varint,1,opt,name=replicas"`
	Selector string `json:"selector,omitempty" protobuf:"bytes,2,opt,name=selector"`
}

// ScaleOf reads the Scale view of an object.
func (r *Resource) ScaleOf(obj meta.Object) (*AutoscalingScale, error) {
	sc, _, err := r.ReadScale(obj)
	return sc, err
}

// ReadScale is scaleOf, and also reports whether the object has its
// desired replica count (see hasReplicas).
func (r *Resource) ReadScale(obj meta.Object) (sc *AutoscalingScale, found bool, err error) {
	doc, err := tables.ToMap(obj)
	if err != nil {
		return nil, false, status.InternalError(err)
	}
	sp := r.Kind.Subresources.Scale
	m := obj.GetObjectMeta()
	sc = &AutoscalingScale{
		TypeMeta: meta.TypeMeta{Kind: "Scale", APIVersion: "autoscaling/v1"},
		Metadata: meta.ObjectMeta{Name: m.Name, Namespace: m.Namespace, UID: m.UID,
			ResourceVersion: m.ResourceVersion, CreationTimestamp: m.CreationTimestamp},
	}
	sc.Spec.Replicas = int32(number(tables.LookupPath(doc, sp.SpecReplicasPath)))
	sc.Status.Replicas = int32(number(tables.LookupPath(doc, sp.StatusReplicasPath)))
	if sp.LabelSelectorPath != "" {
		sc.Status.Selector, _ = tables.LookupPath(doc, sp.LabelSelectorPath).(string)
	}
	_, unstructured := obj.(*meta.Unstructured)
	return sc, hasReplicas(doc, sp.SpecReplicasPath, !unstructured), nil
}

// hasReplicas reports whether doc, an object's JSON form, has its
// desired replica count at the dotted path: kube-apiserver answers 500
// to a read of the Scale of a custom resource without it, and 400 to a
// patch of that Scale that does not set it. A typed object (typed true)
// has it whenever the objects along the path are there: its Go type may
// leave out a zero count (omitempty), which its JSON cannot tell from no
// count, but it leaves out an object only when tagged omitzero, as
// Widget's spec written without one.
func hasReplicas(doc map[string]any, path string, typed bool) bool {
	parts := strings.Split(strings.Trim(path, "."), ".")
	cur := doc
	for _, p := range parts[:len(parts)-1] {
		next, ok := cur[p].(map[string]any)
		if !ok {
			return false
		}
		cur = next
	}
	_, present := cur[parts[len(parts)-1]]
	return typed || present
}

// noReplicas stands for the Scale's count of an object that has none,
// so that a patch that does not set one can be told (as kube-apiserver
// tells it).
const NoReplicas = math.MinInt32

func number(v any) float64 {
	f, _ := v.(float64)
	return f
}

// WithReplicas returns a copy of obj with the desired replica count set.
func (r *Resource) WithReplicas(obj meta.Object, replicas int32) (meta.Object, error) {
	doc, err := tables.ToMap(obj)
	if err != nil {
		return nil, status.InternalError(err)
	}
	parts := strings.Split(strings.Trim(r.Kind.Subresources.Scale.SpecReplicasPath, "."), ".")
	cur := doc
	for _, p := range parts[:len(parts)-1] {
		next, ok := cur[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[p] = next
		}
		cur = next
	}
	cur[parts[len(parts)-1]] = replicas
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, status.InternalError(err)
	}
	out := r.Kind.New()
	if err := json.Unmarshal(b, out); err != nil {
		return nil, status.InternalError(err)
	}
	return out, nil
}
