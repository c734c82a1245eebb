package reviews

import (
	"github.com/kapi-dev/kapi/codec/protobuf"
	"github.com/kapi-dev/kapi/meta"
)

// The review kinds mirror k8s.io/api's authorization/v1 and
// authentication/v1 types field for field, with the same JSON names and
// protobuf field numbers.

// selfSubjectAccessReview is authorization.k8s.io/v1
// SelfSubjectAccessReview.
type selfSubjectAccessReview struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec            selfSubjectAccessReviewSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	Status          subjectAccessReviewStatus   `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

type selfSubjectAccessReviewSpec struct {
	ResourceAttributes    *resourceAttributes    `json:"resourceAttributes,omitempty" protobuf:"bytes,1,opt,name=resourceAttributes"`
	NonResourceAttributes *nonResourceAttributes `json:"nonResourceAttributes,omitempty" protobuf:"bytes,2,opt,name=nonResourceAttributes"`
}

type resourceAttributes struct {
	Namespace   string `json:"namespace,omitempty" protobuf:"bytes,1,opt,name=namespace"`
	Verb        string `json:"verb,omitempty" protobuf:"bytes,2,opt,name=verb"`
	Group       string `json:"group,omitempty" protobuf:"bytes,3,opt,name=group"`
	Version     string `json:"version,omitempty" protobuf:"bytes,4,opt,name=version"`
	Resource    string `json:"resource,omitempty" protobuf:"bytes,5,opt,name=resource"`
	Subresource string `json:"subresource,omitempty" protobuf:"bytes,6,opt,name=subresource"`
	Name        string `json:"name,omitempty" protobuf:"bytes,7,opt,name=name"`
	// FieldSelector and LabelSelector narrow a list or watch; kapi's
	// authorizers do not look at them, but the answer carries them back.
	FieldSelector *selectorAttributes `json:"fieldSelector,omitempty" protobuf:"bytes,8,opt,name=fieldSelector"`
	LabelSelector *selectorAttributes `json:"labelSelector,omitempty" protobuf:"bytes,9,opt,name=labelSelector"`
}

// selectorAttributes is authorization/v1 FieldSelectorAttributes and
// LabelSelectorAttributes, which have the same fields.
type selectorAttributes struct {
	RawSelector  string                `json:"rawSelector,omitempty" protobuf:"bytes,1,opt,name=rawSelector"`
	Requirements []selectorRequirement `json:"requirements,omitempty" protobuf:"bytes,2,rep,name=requirements"`
}

// selectorRequirement is meta/v1 FieldSelectorRequirement and
// LabelSelectorRequirement, which have the same fields.
type selectorRequirement struct {
	Key      string   `json:"key" protobuf:"bytes,1,opt,name=key"`
	Operator string   `json:"operator" protobuf:"bytes,2,opt,name=operator"`
	Values   []string `json:"values,omitempty" protobuf:"bytes,3,rep,name=values"`
}

type nonResourceAttributes struct {
	Path string `json:"path,omitempty" protobuf:"bytes,1,opt,name=path"`
	Verb string `json:"verb,omitempty" protobuf:"bytes,2,opt,name=verb"`
}

type subjectAccessReviewStatus struct {
	Allowed         bool   `json:"allowed" protobuf:"varint,1,opt,name=allowed"`
	Denied          bool   `json:"denied,omitempty" protobuf:"varint,4,opt,name=denied"`
	Reason          string `json:"reason,omitempty" protobuf:"bytes,2,opt,name=reason"`
	EvaluationError string `json:"evaluationError,omitempty" protobuf:"bytes,3,opt,name=evaluationError"`
}

// selfSubjectRulesReview is authorization.k8s.io/v1
// SelfSubjectRulesReview.
type selfSubjectRulesReview struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec            selfSubjectRulesReviewSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	Status          subjectRulesReviewStatus   `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

type selfSubjectRulesReviewSpec struct {
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,1,opt,name=namespace"`
}

type subjectRulesReviewStatus struct {
	ResourceRules    []resourceRule    `json:"resourceRules" protobuf:"bytes,1,rep,name=resourceRules"`
	NonResourceRules []nonResourceRule `json:"nonResourceRules" protobuf:"bytes,2,rep,name=nonResourceRules"`
	Incomplete       bool              `json:"incomplete" protobuf:"varint,3,opt,name=incomplete"`
	EvaluationError  string            `json:"evaluationError,omitempty" protobuf:"bytes,4,opt,name=evaluationError"`
}

type resourceRule struct {
	Verbs         []string `json:"verbs" protobuf:"bytes,1,rep,name=verbs"`
	APIGroups     []string `json:"apiGroups,omitempty" protobuf:"bytes,2,rep,name=apiGroups"`
	Resources     []string `json:"resources,omitempty" protobuf:"bytes,3,rep,name=resources"`
	ResourceNames []string `json:"resourceNames,omitempty" protobuf:"bytes,4,rep,name=resourceNames"`
}

type nonResourceRule struct {
	Verbs           []string `json:"verbs" protobuf:"bytes,1,rep,name=verbs"`
	NonResourceURLs []string `json:"nonResourceURLs,omitempty" protobuf:"bytes,2,rep,name=nonResourceURLs"`
}

// selfSubjectReview is authentication.k8s.io/v1 SelfSubjectReview.
type selfSubjectReview struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Status          selfSubjectReviewStatus `json:"status,omitempty" protobuf:"bytes,2,opt,name=status"`
}

type selfSubjectReviewStatus struct {
	UserInfo userInfo `json:"userInfo,omitempty" protobuf:"bytes,1,opt,name=userInfo"`
}

// userInfo is authentication/v1 UserInfo.
type userInfo struct {
	Username string                `json:"username,omitempty" protobuf:"bytes,1,opt,name=username"`
	UID      string                `json:"uid,omitempty" protobuf:"bytes,2,opt,name=uid"`
	Groups   []string              `json:"groups,omitempty" protobuf:"bytes,3,rep,name=groups"`
	Extra    map[string]extraValue `json:"extra,omitempty" protobuf:"bytes,4,rep,name=extra"`
}

// extraValue is authentication/v1 ExtraValue: a list of strings in JSON,
// a message {items=1} in protobuf.
type extraValue []string

var _ protobuf.Proxied = (*extraValue)(nil)

type extraValueProxy struct {
	Items []string `protobuf:"bytes,1,rep,name=items"`
}

// NewProtobufProxy returns an empty message of items.
func (*extraValue) NewProtobufProxy() any { return &extraValueProxy{} }

// ToProtobufProxy returns the items as a message.
func (v *extraValue) ToProtobufProxy() (any, error) { return &extraValueProxy{Items: *v}, nil }

// FromProtobufProxy takes the message's items.
func (v *extraValue) FromProtobufProxy(p any) error {
	*v = append(extraValue{}, p.(*extraValueProxy).Items...)
	return nil
}
