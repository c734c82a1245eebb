package rbac

import "github.com/kapi-dev/kapi/meta"

// The kinds mirror k8s.io/api/rbac/v1 field for field, with the same
// JSON names and protobuf field numbers; a test in the examples module
// holds the bytes in step.

// Group is the API group of the kinds.
const Group = "rbac.authorization.k8s.io"

// PolicyRule allows verbs on resources (or on non-resource URLs, in
// ClusterRoles).
type PolicyRule struct {
	Verbs           []string `json:"verbs" protobuf:"bytes,1,rep,name=verbs"`
	APIGroups       []string `json:"apiGroups,omitempty" protobuf:"bytes,2,rep,name=apiGroups"`
	Resources       []string `json:"resources,omitempty" protobuf:"bytes,3,rep,name=resources"`
	ResourceNames   []string `json:"resourceNames,omitempty" protobuf:"bytes,4,rep,name=resourceNames"`
	NonResourceURLs []string `json:"nonResourceURLs,omitempty" protobuf:"bytes,5,rep,name=nonResourceURLs"`
}

// Subject is who a binding grants a role to: a User, a Group or a
// ServiceAccount.
type Subject struct {
	Kind      string `json:"kind" protobuf:"bytes,1,opt,name=kind"`
	APIGroup  string `json:"apiGroup,omitempty" protobuf:"bytes,2,opt,name=apiGroup"`
	Name      string `json:"name" protobuf:"bytes,3,opt,name=name"`
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,4,opt,name=namespace"`
}

// RoleRef names the Role or ClusterRole a binding grants.
type RoleRef struct {
	APIGroup string `json:"apiGroup" protobuf:"bytes,1,opt,name=apiGroup"`
	Kind     string `json:"kind" protobuf:"bytes,2,opt,name=kind"`
	Name     string `json:"name" protobuf:"bytes,3,opt,name=name"`
}

// Role is a namespaced set of rules.
type Role struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Rules           []PolicyRule `json:"rules" protobuf:"bytes,2,rep,name=rules"`
}

// RoleBinding grants a Role, or a ClusterRole's rules, in its namespace.
type RoleBinding struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Subjects        []Subject `json:"subjects,omitempty" protobuf:"bytes,2,rep,name=subjects"`
	RoleRef         RoleRef   `json:"roleRef" protobuf:"bytes,3,opt,name=roleRef"`
}

// ClusterRole is a cluster-wide set of rules; with an AggregationRule
// its rules also include those of the ClusterRoles its selectors match.
type ClusterRole struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Rules           []PolicyRule     `json:"rules" protobuf:"bytes,2,rep,name=rules"`
	AggregationRule *AggregationRule `json:"aggregationRule,omitempty" protobuf:"bytes,3,opt,name=aggregationRule"`
}

// AggregationRule selects the ClusterRoles whose rules a ClusterRole
// aggregates.
type AggregationRule struct {
	ClusterRoleSelectors []LabelSelector `json:"clusterRoleSelectors,omitempty" protobuf:"bytes,1,rep,name=clusterRoleSelectors"`
}

// ClusterRoleBinding grants a ClusterRole everywhere.
type ClusterRoleBinding struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Subjects        []Subject `json:"subjects,omitempty" protobuf:"bytes,2,rep,name=subjects"`
	RoleRef         RoleRef   `json:"roleRef" protobuf:"bytes,3,opt,name=roleRef"`
}

// LabelSelector is meta/v1 LabelSelector: labels that must match, and
// expressions on labels.
type LabelSelector struct {
	MatchLabels      map[string]string          `json:"matchLabels,omitempty" protobuf:"bytes,1,rep,name=matchLabels" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	MatchExpressions []LabelSelectorRequirement `json:"matchExpressions,omitempty" protobuf:"bytes,2,rep,name=matchExpressions"`
}

// LabelSelectorRequirement is one expression: key In, NotIn, Exists or
// DoesNotExist values.
type LabelSelectorRequirement struct {
	Key      string   `json:"key" protobuf:"bytes,1,opt,name=key"`
	Operator string   `json:"operator" protobuf:"bytes,2,opt,name=operator"`
	Values   []string `json:"values,omitempty" protobuf:"bytes,3,rep,name=values"`
}

// Matches reports whether labels satisfy the selector. An empty selector
// matches nothing when aggregating, as kube's aggregation controller
// treats it.
func (s LabelSelector) Matches(labels map[string]string) bool {
	if len(s.MatchLabels) == 0 && len(s.MatchExpressions) == 0 {
		return false
	}
	for k, v := range s.MatchLabels {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	for _, e := range s.MatchExpressions {
		v, ok := labels[e.Key]
		switch e.Operator {
		case "In":
			if !ok || !contains(e.Values, v) {
				return false
			}
		case "NotIn":
			if ok && contains(e.Values, v) {
				return false
			}
		case "Exists":
			if !ok {
				return false
			}
		case "DoesNotExist":
			if ok {
				return false
			}
		default:
			return false
		}
	}
	return true
}

func contains(list []string, v string) bool {
	for _, e := range list {
		if e == v {
			return true
		}
	}
	return false
}
