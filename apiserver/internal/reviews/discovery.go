package reviews

import "github.com/kapi-dev/kapi/apiserver/internal/discovery"

// Groups returns the API groups of the reviews, in the order
// kube-apiserver lists them.
func Groups() []string { return []string{"authentication.k8s.io", "authorization.k8s.io"} }

// Resources describes the reviews for discovery as kube-apiserver lists
// them: create-only, by group and name.
func Resources() []discovery.Resource {
	review := func(group, resource, kind string, namespaced bool) discovery.Resource {
		return discovery.Resource{
			Group: group, Version: "v1", Kind: kind, Resource: resource, Singular: resource[:len(resource)-1],
			Namespaced: namespaced, Verbs: []string{"create"}, Builtin: true,
		}
	}
	return []discovery.Resource{
		review("authentication.k8s.io", "selfsubjectreviews", "SelfSubjectReview", false),
		review("authentication.k8s.io", "tokenreviews", "TokenReview", false),
		review("authorization.k8s.io", "localsubjectaccessreviews", "LocalSubjectAccessReview", true),
		review("authorization.k8s.io", "selfsubjectaccessreviews", "SelfSubjectAccessReview", false),
		review("authorization.k8s.io", "selfsubjectrulesreviews", "SelfSubjectRulesReview", false),
		review("authorization.k8s.io", "subjectaccessreviews", "SubjectAccessReview", false),
	}
}
