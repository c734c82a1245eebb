package kinds

import "github.com/kapi-dev/kapi/meta"

// StoredAs keeps a kind's objects in another kind's storage, converted on
// every write and read, as kube-apiserver serves events.k8s.io/v1 Events
// from the core Events' storage: one stored object is read and written
// through both APIs, and a watch on either sees the writes of both.
//
// The objects are stored under the other resource's keys, in the other
// kind's form and in the storage encoding of the server; both kinds must
// have the same scope.
type StoredAs struct {
	// Group, Version, Kind and Resource name the kind whose storage is
	// used (Group "" is the core group).
	Group, Version, Kind, Resource string
	// New returns an empty object of the stored kind. Required.
	New func() meta.Object
	// ToStored converts an object of the served kind into the stored
	// kind. Required.
	ToStored func(obj meta.Object) (meta.Object, error)
	// FromStored converts a stored object into the served kind. Required.
	FromStored func(stored meta.Object) (meta.Object, error)
}

// Scale serves /scale (autoscaling/v1 Scale) for a kind, reading and
// writing the object at these dotted paths.
type Scale struct {
	// SpecReplicasPath is the desired replica count, e.g. .spec.replicas.
	SpecReplicasPath string
	// StatusReplicasPath is the observed count, e.g. .status.readyReplicas.
	StatusReplicasPath string
	// LabelSelectorPath is the selector in string form, e.g.
	// .status.selector; optional.
	LabelSelectorPath string
}
