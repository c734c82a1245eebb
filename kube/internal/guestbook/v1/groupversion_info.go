// Package v1 is a small Kubernetes API package written as controller
// authors write theirs with kubebuilder: apimachinery structs with
// kubebuilder markers, a generated DeepCopy and a SchemeBuilder. The
// runtimekind tests serve it from a kapi server and use it through a
// typed controller-runtime client.
//
// +kubebuilder:object:generate=true
// +groupName=webapp.example.com
package v1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is the group and version of the package's kinds.
	GroupVersion = schema.GroupVersion{Group: "webapp.example.com", Version: "v1"}

	// SchemeBuilder registers the package's types in a scheme.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}

	// AddToScheme adds the package's types to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)
