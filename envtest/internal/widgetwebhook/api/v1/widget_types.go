package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// WidgetSpec is the desired state of a Widget. Its defaults come from
// the defaulting webhook, not from the schema, so that the webhook's
// work shows.
type WidgetSpec struct {
	// Replicas is the number of widgets wanted; the webhook defaults it
	// to 1 and refuses more than 10.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`

	// Color is the widgets' colour; the webhook defaults it to blue and
	// refuses to change it.
	// +kubebuilder:validation:Pattern=`^[a-z]+$`
	// +optional
	Color string `json:"color,omitempty"`
}

// WidgetStatus is the observed state of a Widget.
type WidgetStatus struct {
	// ReadyReplicas is the number of widgets ready.
	// +optional
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`
}

// Widget is the Widget kind of the webhook sample.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=wd
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   WidgetSpec   `json:"spec,omitempty"`
	Status WidgetStatus `json:"status,omitempty"`
}

// WidgetList is a list of Widgets.
//
// +kubebuilder:object:root=true
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}

func init() {
	SchemeBuilder.Register(&Widget{}, &WidgetList{})
}
