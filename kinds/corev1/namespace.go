package corev1

import (
	"context"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// Namespace scopes the names of namespaced objects.
type Namespace struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec holds the namespace's finalizers.
	Spec NamespaceSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is the namespace's phase and conditions.
	Status NamespaceStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// NamespaceSpec holds a Namespace's finalizers.
type NamespaceSpec struct {
	// Finalizers must all be removed, through the /finalize subresource,
	// before a deleted namespace goes. The server adds
	// FinalizerKubernetes on create.
	Finalizers []string `json:"finalizers,omitempty" protobuf:"bytes,1,rep,name=finalizers"`
}

// NamespaceStatus is the phase of a Namespace and how its deletion goes.
type NamespaceStatus struct {
	// Phase is Active, or Terminating once deleted.
	Phase string `json:"phase,omitempty" protobuf:"bytes,1,opt,name=phase"`
	// Conditions report what a deletion waits for.
	Conditions []NamespaceCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,2,rep,name=conditions"`
}

// NamespaceCondition is one aspect of a Namespace's deletion.
type NamespaceCondition struct {
	Type               string    `json:"type" protobuf:"bytes,1,opt,name=type"`
	Status             string    `json:"status" protobuf:"bytes,2,opt,name=status"`
	LastTransitionTime meta.Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,4,opt,name=lastTransitionTime"`
	Reason             string    `json:"reason,omitempty" protobuf:"bytes,5,opt,name=reason"`
	Message            string    `json:"message,omitempty" protobuf:"bytes,6,opt,name=message"`
}

// Namespace phases, finalizer and the namespaces every server has.
const (
	NamespaceActive      = "Active"
	NamespaceTerminating = "Terminating"
	// FinalizerKubernetes is the spec finalizer the namespace controller
	// removes once the namespace is empty.
	FinalizerKubernetes = "kubernetes"
	NamespaceDefault    = "default"
	NamespaceSystem     = "kube-system"
	NamespacePublic     = "kube-public"
)

// The condition types a terminating Namespace reports, as kube's
// namespace controller does.
const (
	NamespaceDeletionDiscoveryFailure = "NamespaceDeletionDiscoveryFailure"
	NamespaceDeletionContentFailure   = "NamespaceDeletionContentFailure"
	NamespaceDeletionGVParsingFailure = "NamespaceDeletionGroupVersionParsingFailure"
	NamespaceContentRemaining         = "NamespaceContentRemaining"
	NamespaceFinalizersRemaining      = "NamespaceFinalizersRemaining"
)

// NamespaceKind is the registration of Namespace: /api/v1 namespaces,
// short name ns, cluster-scoped, with /status and /finalize. A namespace
// is created Active with the kubernetes finalizer, and always carries
// the label LabelMetadataName with its name; deleting it marks it
// Terminating, and it goes once its spec and metadata finalizers are all
// removed (see package controllers/namespace).
func NamespaceKind() apiserver.Kind {
	return apiserver.Kind{
		Group: "", Version: "v1", Kind: "Namespace", Resource: "namespaces", Singular: "namespace",
		ShortNames: []string{"ns"}, Subresources: apiserver.Subresources{Status: true},
		NoGeneration: true, CreateFromEmpty: true, ReturnDeletedObject: true,
		New: func() meta.Object { return &Namespace{} },
		PrepareForCreate: func(obj meta.Object) {
			ns := obj.(*Namespace)
			ns.Status = NamespaceStatus{Phase: NamespaceActive}
			ns.Spec.Finalizers = appendMissing(ns.Spec.Finalizers, FinalizerKubernetes)
		},
		PrepareForUpdate: func(obj, old meta.Object) {
			obj.(*Namespace).Spec.Finalizers = old.(*Namespace).Spec.Finalizers
		},
		// A status write keeps the request's metadata and status, as
		// kube's namespace status strategy does; only spec is the
		// stored one.
		PrepareForStatusUpdate: func(obj, old meta.Object) {
			obj.(*Namespace).Spec = old.(*Namespace).Spec
		},
		// The name label is set twice, as kube-apiserver sets it: by
		// defaulting, when the name is known, so that the write's field
		// manager records it, and once the name is final (generateName),
		// so that no write stores a namespace without it or with another
		// value.
		Default: func(_ context.Context, obj meta.Object) {
			if ns := obj.(*Namespace); ns.Name != "" {
				setNameLabel(ns)
			}
		},
		Canonicalize: func(obj meta.Object) bool { return setNameLabel(obj.(*Namespace)) },
		// A finalize write keeps the request's metadata and spec, as
		// kube's namespace finalize strategy does; only status is the
		// stored one.
		Finalize: func(dst, src meta.Object) {
			d, s := dst.(*Namespace), src.(*Namespace)
			d.ObjectMeta, d.Spec = s.ObjectMeta, s.Spec
		},
		Deletion: &apiserver.DeletionHooks{
			Mark:    func(obj meta.Object) { obj.(*Namespace).Status.Phase = NamespaceTerminating },
			Pending: func(obj meta.Object) bool { return len(obj.(*Namespace).Spec.Finalizers) > 0 },
		},
		Validate: func(_ context.Context, obj, _ meta.Object) status.FieldErrors {
			return validateNamespace(obj.(*Namespace))
		},
		SelectableFields: map[string]func(meta.Object) string{
			"status.phase": func(obj meta.Object) string { return obj.(*Namespace).Status.Phase },
		},
		PrinterColumns: []apiserver.PrinterColumn{
			{Name: "Status", Type: "string", Description: "The status of the namespace",
				Cell: func(obj meta.Object) any { return obj.(*Namespace).Status.Phase }},
			apiserver.AgeColumn(),
		},
	}
}

// validateNamespace checks the name is a DNS label and the finalizers
// are qualified names.
func validateNamespace(ns *Namespace) status.FieldErrors {
	var errs status.FieldErrors
	if ns.Name != "" && !dnsLabel.MatchString(ns.Name) {
		errs = append(errs, status.InvalidValue(status.NewPath("metadata", "name"), ns.Name,
			"a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"))
	}
	for i, f := range ns.Spec.Finalizers {
		if !qualifiedName.MatchString(f) {
			errs = append(errs, status.InvalidValue(status.NewPath("spec", "finalizers").Index(i), f, "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"))
		}
	}
	if ns.Status.Phase != "" && ns.Status.Phase != NamespaceActive && ns.Status.Phase != NamespaceTerminating {
		errs = append(errs, status.NotSupported(status.NewPath("status", "phase"), ns.Status.Phase, []string{NamespaceActive, NamespaceTerminating}))
	}
	return errs
}

// LabelMetadataName is the label every Namespace carries, whose value is
// its name, so that label selectors can pick namespaces by name.
const LabelMetadataName = "kubernetes.io/metadata.name"

// setNameLabel sets ns's LabelMetadataName label to its name and reports
// whether that changed it.
func setNameLabel(ns *Namespace) bool {
	if v, ok := ns.Labels[LabelMetadataName]; ok && v == ns.Name {
		return false
	}
	if ns.Labels == nil {
		ns.Labels = map[string]string{}
	}
	ns.Labels[LabelMetadataName] = ns.Name
	return true
}

func appendMissing(list []string, v string) []string {
	for _, e := range list {
		if e == v {
			return list
		}
	}
	return append(list, v)
}
