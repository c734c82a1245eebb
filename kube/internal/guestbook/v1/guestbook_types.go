package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// GuestbookSpec is the desired state of a Guestbook. The kapi schema
// tags next to the json tags say what the kubebuilder markers say, for
// a server that builds the schema from the Go type rather than from the
// generated CRD.
type GuestbookSpec struct {
	// Title is shown above the entries.
	// +kubebuilder:validation:Pattern=`^[a-z ]+$`
	// +kubebuilder:validation:MaxLength=40
	Title string `json:"title" pattern:"^[a-z ]+$" maxLength:"40"`

	// Replicas is the number of frontends.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=10
	// +kubebuilder:default=1
	// +optional
	Replicas *int32 `json:"replicas,omitempty" minimum:"1" maximum:"10" default:"1"`

	// Theme is the page's colour theme.
	// +kubebuilder:validation:Enum=light;dark
	// +optional
	Theme string `json:"theme,omitempty" enum:"light,dark"`
}

// GuestbookStatus is the observed state of a Guestbook.
type GuestbookStatus struct {
	// Entries is the number of entries written.
	// +optional
	Entries int32 `json:"entries,omitempty"`

	// LastEntry is when the last entry was written.
	// +optional
	LastEntry *metav1.Time `json:"lastEntry,omitempty"`

	// Conditions are the latest observations of the Guestbook's state.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty" listType:"map" listMapKey:"type"`
}

// Guestbook is a guest book web application.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=gb,categories=all
// +kubebuilder:printcolumn:name="Title",type=string,JSONPath=`.spec.title`
// +kubebuilder:printcolumn:name="Entries",type=integer,JSONPath=`.status.entries`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:selectablefield:JSONPath=`.spec.theme`
type Guestbook struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   GuestbookSpec   `json:"spec,omitempty"`
	Status GuestbookStatus `json:"status,omitempty"`
}

// GuestbookList is a list of Guestbooks.
//
// +kubebuilder:object:root=true
type GuestbookList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Guestbook `json:"items"`
}

func init() {
	SchemeBuilder.Register(&Guestbook{}, &GuestbookList{})
}
