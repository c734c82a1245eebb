package corev1

// ObjectReference points at another object, as core/v1 ObjectReference.
type ObjectReference struct {
	Kind            string `json:"kind,omitempty" protobuf:"bytes,1,opt,name=kind"`
	Namespace       string `json:"namespace,omitempty" protobuf:"bytes,2,opt,name=namespace"`
	Name            string `json:"name,omitempty" protobuf:"bytes,3,opt,name=name"`
	UID             string `json:"uid,omitempty" protobuf:"bytes,4,opt,name=uid"`
	APIVersion      string `json:"apiVersion,omitempty" protobuf:"bytes,5,opt,name=apiVersion"`
	ResourceVersion string `json:"resourceVersion,omitempty" protobuf:"bytes,6,opt,name=resourceVersion"`
	// FieldPath names a part of the object, such as a container.
	FieldPath string `json:"fieldPath,omitempty" protobuf:"bytes,7,opt,name=fieldPath"`
}

// LocalObjectReference names an object in the same namespace.
type LocalObjectReference struct {
	Name string `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
}
