package e2e

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
)

// The Widget types a controller-runtime user writes for the kind: apimachinery
// metadata, the JSON tags of examples/widgets/api, hand-written deep copies
// in place of generated ones.

var widgetGV = schema.GroupVersion{Group: "stable.example.com", Version: "v1"}

type crWidget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              crWidgetSpec   `json:"spec,omitempty"`
	Status            crWidgetStatus `json:"status,omitempty"`
}

type crWidgetSpec struct {
	Replicas *int32         `json:"replicas,omitempty"`
	Color    string         `json:"color,omitempty"`
	Size     string         `json:"size,omitempty"`
	Tags     []string       `json:"tags,omitempty"`
	Ports    []crWidgetPort `json:"ports,omitempty" patchStrategy:"merge" patchMergeKey:"name"`
}

type crWidgetPort struct {
	Name     string `json:"name"`
	Port     int32  `json:"port"`
	Protocol string `json:"protocol,omitempty"`
}

type crWidgetStatus struct {
	ReadyReplicas      int32              `json:"readyReplicas,omitempty"`
	ObservedGeneration int64              `json:"observedGeneration,omitempty"`
	Selector           string             `json:"selector,omitempty"`
	Conditions         []metav1.Condition `json:"conditions,omitempty"`
}

type crWidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []crWidget `json:"items"`
}

func (w *crWidget) DeepCopyObject() runtime.Object { return w.DeepCopy() }

func (w *crWidget) DeepCopy() *crWidget {
	if w == nil {
		return nil
	}
	out := *w
	w.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if w.Spec.Replicas != nil {
		r := *w.Spec.Replicas
		out.Spec.Replicas = &r
	}
	out.Spec.Tags = append([]string(nil), w.Spec.Tags...)
	out.Spec.Ports = append([]crWidgetPort(nil), w.Spec.Ports...)
	if w.Status.Conditions != nil {
		out.Status.Conditions = make([]metav1.Condition, len(w.Status.Conditions))
		for i := range w.Status.Conditions {
			w.Status.Conditions[i].DeepCopyInto(&out.Status.Conditions[i])
		}
	}
	return &out
}

func (l *crWidgetList) DeepCopyObject() runtime.Object {
	if l == nil {
		return nil
	}
	out := *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]crWidget, len(l.Items))
		for i := range l.Items {
			out.Items[i] = *l.Items[i].DeepCopy()
		}
	}
	return &out
}

// newCRScheme registers the Widget types and the built-in kinds the
// controller-runtime machinery reads and writes (Scale, Leases, Events).
func newCRScheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	// The Go names are not the kind names, so register them by name.
	s.AddKnownTypeWithName(widgetGV.WithKind("Widget"), &crWidget{})
	s.AddKnownTypeWithName(widgetGV.WithKind("WidgetList"), &crWidgetList{})
	metav1.AddToGroupVersion(s, widgetGV)
	if err := clientgoscheme.AddToScheme(s); err != nil {
		return nil, err
	}
	return s, nil
}
