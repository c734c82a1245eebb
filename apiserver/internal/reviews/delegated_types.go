package reviews

import "github.com/kapi-dev/kapi/meta"

// The reviews a server asks of another about someone else's credentials
// and rights (an aggregated server delegating to this one): they mirror
// k8s.io/api's authentication/v1 TokenReview and authorization/v1
// SubjectAccessReview and LocalSubjectAccessReview field for field, with
// the same JSON names and protobuf field numbers.

// tokenReview is authentication.k8s.io/v1 TokenReview.
type tokenReview struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec            tokenReviewSpec   `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	Status          tokenReviewStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

type tokenReviewSpec struct {
	Token     string   `json:"token,omitempty" protobuf:"bytes,1,opt,name=token"`
	Audiences []string `json:"audiences,omitempty" protobuf:"bytes,2,rep,name=audiences"`
}

type tokenReviewStatus struct {
	Authenticated bool `json:"authenticated,omitempty" protobuf:"varint,1,opt,name=authenticated"`
	// User is written even when empty, as kube-apiserver does.
	User      userInfo `json:"user" protobuf:"bytes,2,opt,name=user"`
	Audiences []string `json:"audiences,omitempty" protobuf:"bytes,4,rep,name=audiences"`
	Error     string   `json:"error,omitempty" protobuf:"bytes,3,opt,name=error"`
}

// subjectAccessReview is authorization.k8s.io/v1 SubjectAccessReview
// and, with a namespace, LocalSubjectAccessReview (the same fields).
type subjectAccessReview struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec            subjectAccessReviewSpec   `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	Status          subjectAccessReviewStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

type subjectAccessReviewSpec struct {
	ResourceAttributes    *resourceAttributes    `json:"resourceAttributes,omitempty" protobuf:"bytes,1,opt,name=resourceAttributes"`
	NonResourceAttributes *nonResourceAttributes `json:"nonResourceAttributes,omitempty" protobuf:"bytes,2,opt,name=nonResourceAttributes"`
	User                  string                 `json:"user,omitempty" protobuf:"bytes,3,opt,name=user"`
	Groups                []string               `json:"groups,omitempty" protobuf:"bytes,4,rep,name=groups"`
	Extra                 map[string]extraValue  `json:"extra,omitempty" protobuf:"bytes,5,rep,name=extra"`
	UID                   string                 `json:"uid,omitempty" protobuf:"bytes,6,opt,name=uid"`
}
