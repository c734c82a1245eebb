// Package coordinationv1 serves coordination.k8s.io/v1 Leases with kapi,
// so that controllers that elect a leader (client-go's leaderelection,
// controller-runtime managers with LeaderElection) run against a kapi
// server unchanged, in protobuf as client-go's Lease client speaks it.
//
// Lease mirrors k8s.io/api/coordination/v1.Lease field for field, with the
// same JSON names and protobuf field numbers and kapi's meta types
// (meta.MicroTime for the times); a test holds the two in step.
package coordinationv1

import (
	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/meta"
)

// Lease is a lock held by one holder for a while.
type Lease struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the state of the lease.
	Spec LeaseSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
}

// LeaseSpec is the state of a Lease.
type LeaseSpec struct {
	// HolderIdentity names the current holder.
	HolderIdentity *string `json:"holderIdentity,omitempty" protobuf:"bytes,1,opt,name=holderIdentity"`
	// LeaseDurationSeconds is how long candidates wait before taking the
	// lease over, counted from the last renewal.
	LeaseDurationSeconds *int32 `json:"leaseDurationSeconds,omitempty" protobuf:"varint,2,opt,name=leaseDurationSeconds"`
	// AcquireTime is when the current holder acquired the lease.
	AcquireTime *meta.MicroTime `json:"acquireTime,omitempty" protobuf:"bytes,3,opt,name=acquireTime"`
	// RenewTime is when the current holder last renewed the lease.
	RenewTime *meta.MicroTime `json:"renewTime,omitempty" protobuf:"bytes,4,opt,name=renewTime"`
	// LeaseTransitions counts the changes of holder.
	LeaseTransitions *int32 `json:"leaseTransitions,omitempty" protobuf:"varint,5,opt,name=leaseTransitions"`
	// Strategy is how coordinated leader election picks the holder.
	Strategy *string `json:"strategy,omitempty" protobuf:"bytes,6,opt,name=strategy"`
	// PreferredHolder is the holder coordinated leader election prefers.
	PreferredHolder *string `json:"preferredHolder,omitempty" protobuf:"bytes,7,opt,name=preferredHolder"`
}

// LeaseKind is the registration of Lease: /apis/coordination.k8s.io/v1
// leases, namespaced.
func LeaseKind() apiserver.Kind {
	return apiserver.Kind{
		Group: "coordination.k8s.io", Version: "v1", Kind: "Lease", Resource: "leases", Singular: "lease",
		Namespaced:   true,
		NoGeneration: true,
		New:          func() meta.Object { return &Lease{} },
		PrinterColumns: []apiserver.PrinterColumn{
			{Name: "Holder", Type: "string", Description: holderDoc, Cell: func(obj meta.Object) any {
				if h := obj.(*Lease).Spec.HolderIdentity; h != nil {
					return *h
				}
				return ""
			}},
			apiserver.AgeColumn(),
		},
	}
}

// holderDoc describes the Holder column, as kube's Table of Leases does.
const holderDoc = "holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader Election is used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field."
