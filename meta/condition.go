package meta

// Condition is one aspect of an object's state as its controller last
// observed it, as meta/v1 Condition: a type, a status (True, False or
// Unknown), when that status last changed and why.
type Condition struct {
	Type   string `json:"type" protobuf:"bytes,1,opt,name=type"`
	Status string `json:"status" protobuf:"bytes,2,opt,name=status"`
	// ObservedGeneration is the metadata.generation the condition was
	// set from.
	ObservedGeneration int64  `json:"observedGeneration,omitempty" protobuf:"varint,3,opt,name=observedGeneration"`
	LastTransitionTime Time   `json:"lastTransitionTime" protobuf:"bytes,4,opt,name=lastTransitionTime"`
	Reason             string `json:"reason" protobuf:"bytes,5,opt,name=reason"`
	Message            string `json:"message" protobuf:"bytes,6,opt,name=message"`
}
