// Package v1 is the API of the sample Widget webhook, written as
// kubebuilder scaffolds one: apimachinery structs with kubebuilder
// markers, a generated DeepCopy and a SchemeBuilder. Its CRD is in
// config/crd/bases.
//
// +kubebuilder:object:generate=true
// +groupName=stable.example.com
package v1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is the group and version of the package's kinds.
	GroupVersion = schema.GroupVersion{Group: "stable.example.com", Version: "v1"}

	// SchemeBuilder registers the package's types in a scheme.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}

	// AddToScheme adds the package's types to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)
