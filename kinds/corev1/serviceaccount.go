package corev1

import (
	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/meta"
)

// ServiceAccount is an identity for processes.
type ServiceAccount struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Secrets lists secrets the account's processes may use.
	Secrets []ObjectReference `json:"secrets,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,2,rep,name=secrets"`
	// ImagePullSecrets name secrets for pulling images.
	ImagePullSecrets []LocalObjectReference `json:"imagePullSecrets,omitempty" protobuf:"bytes,3,rep,name=imagePullSecrets"`
	// AutomountServiceAccountToken says whether pods mount a token.
	AutomountServiceAccountToken *bool `json:"automountServiceAccountToken,omitempty" protobuf:"varint,4,opt,name=automountServiceAccountToken"`
}

// ServiceAccountKind is the registration of ServiceAccount: /api/v1
// serviceaccounts, short name sa, namespaced.
func ServiceAccountKind() apiserver.Kind {
	return apiserver.Kind{
		Group: "", Version: "v1", Kind: "ServiceAccount", Resource: "serviceaccounts", Singular: "serviceaccount",
		ShortNames: []string{"sa"}, Namespaced: true,
		NoGeneration: true,
		// kube's serviceaccount store answers a delete with the object.
		ReturnDeletedObject: true,
		New:                 func() meta.Object { return &ServiceAccount{} },
		// Name and Age only: kube dropped the Secrets column.
		PrinterColumns: []apiserver.PrinterColumn{apiserver.AgeColumn()},
	}
}
