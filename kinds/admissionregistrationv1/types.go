package admissionregistrationv1

import "github.com/kapi-dev/kapi/meta"

// The wire types of admissionregistration.k8s.io/v1, field for field as
// kube-apiserver v1.37 serves them (JSON names and protobuf numbers).

// Rule matches requests by API group, version and resource (with "*" and
// "resource/subresource" forms) and scope.
type Rule struct {
	APIGroups   []string   `json:"apiGroups,omitempty" protobuf:"bytes,1,rep,name=apiGroups"`
	APIVersions []string   `json:"apiVersions,omitempty" protobuf:"bytes,2,rep,name=apiVersions"`
	Resources   []string   `json:"resources,omitempty" protobuf:"bytes,3,rep,name=resources"`
	Scope       *ScopeType `json:"scope,omitempty" protobuf:"bytes,4,rep,name=scope"`
}

// ScopeType is the scope a Rule matches: Cluster, Namespaced or "*".
type ScopeType string

const (
	ClusterScope    ScopeType = "Cluster"
	NamespacedScope ScopeType = "Namespaced"
	AllScopes       ScopeType = "*"
)

// FailurePolicyType says what a failed call or evaluation does: Ignore or
// Fail.
type FailurePolicyType string

const (
	Ignore FailurePolicyType = "Ignore"
	Fail   FailurePolicyType = "Fail"
)

// ParameterNotFoundActionType says what a binding does when its params are
// missing: Allow or Deny.
type ParameterNotFoundActionType string

const (
	AllowAction ParameterNotFoundActionType = "Allow"
	DenyAction  ParameterNotFoundActionType = "Deny"
)

// MatchPolicyType says whether a request in another version of a matched
// resource matches: Exact or Equivalent.
type MatchPolicyType string

const (
	Exact      MatchPolicyType = "Exact"
	Equivalent MatchPolicyType = "Equivalent"
)

// SideEffectClass declares a webhook's side effects; v1 accepts None and
// NoneOnDryRun.
type SideEffectClass string

const (
	SideEffectClassUnknown      SideEffectClass = "Unknown"
	SideEffectClassNone         SideEffectClass = "None"
	SideEffectClassSome         SideEffectClass = "Some"
	SideEffectClassNoneOnDryRun SideEffectClass = "NoneOnDryRun"
)

// ValidatingAdmissionPolicy validates requests with CEL expressions, where
// a binding applies it.
type ValidatingAdmissionPolicy struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec            ValidatingAdmissionPolicySpec   `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	Status          ValidatingAdmissionPolicyStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// ValidatingAdmissionPolicyStatus is what the server found checking a
// policy: its type checking and conditions.
type ValidatingAdmissionPolicyStatus struct {
	ObservedGeneration int64            `json:"observedGeneration,omitempty" protobuf:"varint,1,opt,name=observedGeneration"`
	TypeChecking       *TypeChecking    `json:"typeChecking,omitempty" protobuf:"bytes,2,opt,name=typeChecking"`
	Conditions         []meta.Condition `json:"conditions,omitempty" protobuf:"bytes,3,rep,name=conditions"`
}

// ValidatingAdmissionPolicyConditionType names a condition of a policy's
// status.
type ValidatingAdmissionPolicyConditionType string

// TypeChecking holds the warnings type checking a policy's expressions
// raised.
type TypeChecking struct {
	ExpressionWarnings []ExpressionWarning `json:"expressionWarnings,omitempty" protobuf:"bytes,1,rep,name=expressionWarnings"`
}

// ExpressionWarning is one type-checking warning, on the field path of its
// expression.
type ExpressionWarning struct {
	FieldRef string `json:"fieldRef" protobuf:"bytes,2,opt,name=fieldRef"`
	Warning  string `json:"warning" protobuf:"bytes,3,opt,name=warning"`
}

// ValidatingAdmissionPolicyList is a list of ValidatingAdmissionPolicies.
type ValidatingAdmissionPolicyList struct {
	meta.TypeMeta `json:",inline"`
	meta.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items         []ValidatingAdmissionPolicy `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ValidatingAdmissionPolicySpec is what a ValidatingAdmissionPolicy
// matches and checks.
type ValidatingAdmissionPolicySpec struct {
	ParamKind        *ParamKind         `json:"paramKind,omitempty" protobuf:"bytes,1,rep,name=paramKind"`
	MatchConstraints *MatchResources    `json:"matchConstraints,omitempty" protobuf:"bytes,2,rep,name=matchConstraints"`
	Validations      []Validation       `json:"validations,omitempty" protobuf:"bytes,3,rep,name=validations"`
	FailurePolicy    *FailurePolicyType `json:"failurePolicy,omitempty" protobuf:"bytes,4,opt,name=failurePolicy,casttype=FailurePolicyType"`
	AuditAnnotations []AuditAnnotation  `json:"auditAnnotations,omitempty" protobuf:"bytes,5,rep,name=auditAnnotations"`
	MatchConditions  []MatchCondition   `json:"matchConditions,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,6,rep,name=matchConditions"`
	Variables        []Variable         `json:"variables,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,7,rep,name=variables"`
}

// ParamKind names the kind of a policy's parameter objects.
type ParamKind struct {
	APIVersion string `json:"apiVersion,omitempty" protobuf:"bytes,1,rep,name=apiVersion"`
	Kind       string `json:"kind,omitempty" protobuf:"bytes,2,rep,name=kind"`
}

// Validation is one CEL check of a policy, with its message and reason.
type Validation struct {
	Expression        string             `json:"expression" protobuf:"bytes,1,opt,name=Expression"`
	Message           string             `json:"message,omitempty" protobuf:"bytes,2,opt,name=message"`
	Reason            *meta.StatusReason `json:"reason,omitempty" protobuf:"bytes,3,opt,name=reason"`
	MessageExpression string             `json:"messageExpression,omitempty" protobuf:"bytes,4,opt,name=messageExpression"`
}

// Variable is a named CEL expression a policy's other expressions read as
// variables.NAME.
type Variable struct {
	Name       string `json:"name" protobuf:"bytes,1,opt,name=Name"`
	Expression string `json:"expression" protobuf:"bytes,2,opt,name=Expression"`
}

// AuditAnnotation is an audit annotation a policy adds, computed by a CEL
// expression.
type AuditAnnotation struct {
	Key             string `json:"key" protobuf:"bytes,1,opt,name=key"`
	ValueExpression string `json:"valueExpression" protobuf:"bytes,2,opt,name=valueExpression"`
}

// ValidatingAdmissionPolicyBinding applies a ValidatingAdmissionPolicy to
// the resources it matches, with params.
type ValidatingAdmissionPolicyBinding struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec            ValidatingAdmissionPolicyBindingSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
}

// ValidatingAdmissionPolicyBindingList is a list of
// ValidatingAdmissionPolicyBindings.
type ValidatingAdmissionPolicyBindingList struct {
	meta.TypeMeta `json:",inline"`
	meta.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items         []ValidatingAdmissionPolicyBinding `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ValidatingAdmissionPolicyBindingSpec names the policy, its params, what
// it matches and the actions a failure takes.
type ValidatingAdmissionPolicyBindingSpec struct {
	PolicyName        string             `json:"policyName,omitempty" protobuf:"bytes,1,rep,name=policyName"`
	ParamRef          *ParamRef          `json:"paramRef,omitempty" protobuf:"bytes,2,rep,name=paramRef"`
	MatchResources    *MatchResources    `json:"matchResources,omitempty" protobuf:"bytes,3,rep,name=matchResources"`
	ValidationActions []ValidationAction `json:"validationActions,omitempty" protobuf:"bytes,4,rep,name=validationActions"`
}

// ParamRef finds a binding's param objects: by name, or by label selector,
// in a namespace.
type ParamRef struct {
	Name                    string                       `json:"name,omitempty" protobuf:"bytes,1,rep,name=name"`
	Namespace               string                       `json:"namespace,omitempty" protobuf:"bytes,2,rep,name=namespace"`
	Selector                *LabelSelector               `json:"selector,omitempty" protobuf:"bytes,3,rep,name=selector"`
	ParameterNotFoundAction *ParameterNotFoundActionType `json:"parameterNotFoundAction,omitempty" protobuf:"bytes,4,rep,name=parameterNotFoundAction"`
}

// MatchResources selects requests by namespace and object selectors and
// resource rules, with exclusions.
type MatchResources struct {
	NamespaceSelector    *LabelSelector            `json:"namespaceSelector,omitempty" protobuf:"bytes,1,opt,name=namespaceSelector"`
	ObjectSelector       *LabelSelector            `json:"objectSelector,omitempty" protobuf:"bytes,2,opt,name=objectSelector"`
	ResourceRules        []NamedRuleWithOperations `json:"resourceRules,omitempty" protobuf:"bytes,3,rep,name=resourceRules"`
	ExcludeResourceRules []NamedRuleWithOperations `json:"excludeResourceRules,omitempty" protobuf:"bytes,4,rep,name=excludeResourceRules"`
	MatchPolicy          *MatchPolicyType          `json:"matchPolicy,omitempty" protobuf:"bytes,7,opt,name=matchPolicy,casttype=MatchPolicyType"`
}

// ValidationAction is what a failed validation does: Deny, Warn or Audit.
type ValidationAction string

const (
	Deny  ValidationAction = "Deny"
	Warn  ValidationAction = "Warn"
	Audit ValidationAction = "Audit"
)

// NamedRuleWithOperations is a RuleWithOperations limited to some resource
// names.
type NamedRuleWithOperations struct {
	ResourceNames      []string `json:"resourceNames,omitempty" protobuf:"bytes,1,rep,name=resourceNames"`
	RuleWithOperations `json:"" protobuf:"bytes,2,opt,name=ruleWithOperations"`
}

// ValidatingWebhookConfiguration lists webhooks that admit or reject
// requests without changing them.
type ValidatingWebhookConfiguration struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Webhooks        []ValidatingWebhook `json:"webhooks,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,2,rep,name=Webhooks"`
}

// ValidatingWebhookConfigurationList is a list of
// ValidatingWebhookConfigurations.
type ValidatingWebhookConfigurationList struct {
	meta.TypeMeta `json:",inline"`
	meta.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items         []ValidatingWebhookConfiguration `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// MutatingWebhookConfiguration lists webhooks that may change requests'
// objects, and admit or reject them.
type MutatingWebhookConfiguration struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Webhooks        []MutatingWebhook `json:"webhooks,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,2,rep,name=Webhooks"`
}

// MutatingWebhookConfigurationList is a list of
// MutatingWebhookConfigurations.
type MutatingWebhookConfigurationList struct {
	meta.TypeMeta `json:",inline"`
	meta.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items         []MutatingWebhookConfiguration `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ValidatingWebhook is one validating webhook: what it matches and how it
// is called.
type ValidatingWebhook struct {
	Name                    string               `json:"name" protobuf:"bytes,1,opt,name=name"`
	ClientConfig            WebhookClientConfig  `json:"clientConfig" protobuf:"bytes,2,opt,name=clientConfig"`
	Rules                   []RuleWithOperations `json:"rules,omitempty" protobuf:"bytes,3,rep,name=rules"`
	FailurePolicy           *FailurePolicyType   `json:"failurePolicy,omitempty" protobuf:"bytes,4,opt,name=failurePolicy,casttype=FailurePolicyType"`
	MatchPolicy             *MatchPolicyType     `json:"matchPolicy,omitempty" protobuf:"bytes,9,opt,name=matchPolicy,casttype=MatchPolicyType"`
	NamespaceSelector       *LabelSelector       `json:"namespaceSelector,omitempty" protobuf:"bytes,5,opt,name=namespaceSelector"`
	ObjectSelector          *LabelSelector       `json:"objectSelector,omitempty" protobuf:"bytes,10,opt,name=objectSelector"`
	SideEffects             *SideEffectClass     `json:"sideEffects" protobuf:"bytes,6,opt,name=sideEffects,casttype=SideEffectClass"`
	TimeoutSeconds          *int32               `json:"timeoutSeconds,omitempty" protobuf:"varint,7,opt,name=timeoutSeconds"`
	AdmissionReviewVersions []string             `json:"admissionReviewVersions" protobuf:"bytes,8,rep,name=admissionReviewVersions"`
	MatchConditions         []MatchCondition     `json:"matchConditions,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,11,opt,name=matchConditions"`
}

// MutatingWebhook is one mutating webhook: what it matches, how it is
// called and when it is called again.
type MutatingWebhook struct {
	Name                    string                  `json:"name" protobuf:"bytes,1,opt,name=name"`
	ClientConfig            WebhookClientConfig     `json:"clientConfig" protobuf:"bytes,2,opt,name=clientConfig"`
	Rules                   []RuleWithOperations    `json:"rules,omitempty" protobuf:"bytes,3,rep,name=rules"`
	FailurePolicy           *FailurePolicyType      `json:"failurePolicy,omitempty" protobuf:"bytes,4,opt,name=failurePolicy,casttype=FailurePolicyType"`
	MatchPolicy             *MatchPolicyType        `json:"matchPolicy,omitempty" protobuf:"bytes,9,opt,name=matchPolicy,casttype=MatchPolicyType"`
	NamespaceSelector       *LabelSelector          `json:"namespaceSelector,omitempty" protobuf:"bytes,5,opt,name=namespaceSelector"`
	ObjectSelector          *LabelSelector          `json:"objectSelector,omitempty" protobuf:"bytes,11,opt,name=objectSelector"`
	SideEffects             *SideEffectClass        `json:"sideEffects" protobuf:"bytes,6,opt,name=sideEffects,casttype=SideEffectClass"`
	TimeoutSeconds          *int32                  `json:"timeoutSeconds,omitempty" protobuf:"varint,7,opt,name=timeoutSeconds"`
	AdmissionReviewVersions []string                `json:"admissionReviewVersions" protobuf:"bytes,8,rep,name=admissionReviewVersions"`
	ReinvocationPolicy      *ReinvocationPolicyType `json:"reinvocationPolicy,omitempty" protobuf:"bytes,10,opt,name=reinvocationPolicy,casttype=ReinvocationPolicyType"`
	MatchConditions         []MatchCondition        `json:"matchConditions,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,12,opt,name=matchConditions"`
}

// MutatingAdmissionPolicy changes requests' objects with CEL mutations,
// where a binding applies it.
type MutatingAdmissionPolicy struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec            MutatingAdmissionPolicySpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
}

// MutatingAdmissionPolicyList is a list of MutatingAdmissionPolicies.
type MutatingAdmissionPolicyList struct {
	meta.TypeMeta `json:",inline"`
	meta.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items         []MutatingAdmissionPolicy `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// MutatingAdmissionPolicySpec is what a MutatingAdmissionPolicy matches
// and how it mutates.
type MutatingAdmissionPolicySpec struct {
	ParamKind          *ParamKind             `json:"paramKind,omitempty" protobuf:"bytes,1,rep,name=paramKind"`
	MatchConstraints   *MatchResources        `json:"matchConstraints,omitempty" protobuf:"bytes,2,rep,name=matchConstraints"`
	Variables          []Variable             `json:"variables,omitempty" protobuf:"bytes,3,rep,name=variables"`
	Mutations          []Mutation             `json:"mutations,omitempty" protobuf:"bytes,4,rep,name=mutations"`
	FailurePolicy      *FailurePolicyType     `json:"failurePolicy,omitempty" protobuf:"bytes,5,opt,name=failurePolicy,casttype=FailurePolicyType"`
	MatchConditions    []MatchCondition       `json:"matchConditions,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,6,rep,name=matchConditions"`
	ReinvocationPolicy ReinvocationPolicyType `json:"reinvocationPolicy,omitempty" protobuf:"bytes,7,opt,name=reinvocationPolicy,casttype=ReinvocationPolicyType"`
}

// Mutation is one change a policy makes: an apply configuration or a JSON
// patch, computed by CEL.
type Mutation struct {
	PatchType          PatchType           `json:"patchType" protobuf:"bytes,2,opt,name=patchType,casttype=PatchType"`
	ApplyConfiguration *ApplyConfiguration `json:"applyConfiguration,omitempty" protobuf:"bytes,3,opt,name=applyConfiguration"`
	JSONPatch          *JSONPatch          `json:"jsonPatch,omitempty" protobuf:"bytes,4,opt,name=jsonPatch"`
}

// PatchType is how a Mutation changes the object: ApplyConfiguration or
// JSONPatch.
type PatchType string

const (
	PatchTypeApplyConfiguration PatchType = "ApplyConfiguration"
	PatchTypeJSONPatch          PatchType = "JSONPatch"
)

// ApplyConfiguration is a CEL expression giving an object merged into the
// request's as server-side apply merges.
type ApplyConfiguration struct {
	Expression string `json:"expression,omitempty" protobuf:"bytes,1,opt,name=expression"`
}

// JSONPatch is a CEL expression giving JSON Patch operations applied to
// the request's object.
type JSONPatch struct {
	Expression string `json:"expression,omitempty" protobuf:"bytes,1,opt,name=expression"`
}

// MutatingAdmissionPolicyBinding applies a MutatingAdmissionPolicy to the
// resources it matches, with params.
type MutatingAdmissionPolicyBinding struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec            MutatingAdmissionPolicyBindingSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
}

// MutatingAdmissionPolicyBindingList is a list of
// MutatingAdmissionPolicyBindings.
type MutatingAdmissionPolicyBindingList struct {
	meta.TypeMeta `json:",inline"`
	meta.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items         []MutatingAdmissionPolicyBinding `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// MutatingAdmissionPolicyBindingSpec names the policy, its params and what
// it matches.
type MutatingAdmissionPolicyBindingSpec struct {
	PolicyName     string          `json:"policyName,omitempty" protobuf:"bytes,1,rep,name=policyName"`
	ParamRef       *ParamRef       `json:"paramRef,omitempty" protobuf:"bytes,2,rep,name=paramRef"`
	MatchResources *MatchResources `json:"matchResources,omitempty" protobuf:"bytes,3,rep,name=matchResources"`
}

// ReinvocationPolicyType says whether a mutation runs again when later
// ones changed the object: Never or IfNeeded.
type ReinvocationPolicyType string

const (
	NeverReinvocationPolicy    ReinvocationPolicyType = "Never"
	IfNeededReinvocationPolicy ReinvocationPolicyType = "IfNeeded"
)

// RuleWithOperations is a Rule limited to some operations.
type RuleWithOperations struct {
	Operations []OperationType `json:"operations,omitempty" protobuf:"bytes,1,rep,name=operations,casttype=OperationType"`
	Rule       `json:"" protobuf:"bytes,2,opt,name=rule"`
}

// OperationType is an operation a rule matches: CREATE, UPDATE, DELETE,
// CONNECT or "*".
type OperationType string

const (
	OperationAll OperationType = "*"
	Create       OperationType = "CREATE"
	Update       OperationType = "UPDATE"
	Delete       OperationType = "DELETE"
	Connect      OperationType = "CONNECT"
)

// WebhookClientConfig says how to reach a webhook: a URL or a Service,
// with the CA bundle that signs its certificate.
type WebhookClientConfig struct {
	URL      *string           `json:"url,omitempty" protobuf:"bytes,3,opt,name=url"`
	Service  *ServiceReference `json:"service,omitempty" protobuf:"bytes,1,opt,name=service"`
	CABundle []byte            `json:"caBundle,omitempty" protobuf:"bytes,2,opt,name=caBundle"`
}

// ServiceReference names the Service (and path and port) a webhook is
// reached through.
type ServiceReference struct {
	Namespace string  `json:"namespace" protobuf:"bytes,1,opt,name=namespace"`
	Name      string  `json:"name" protobuf:"bytes,2,opt,name=name"`
	Path      *string `json:"path,omitempty" protobuf:"bytes,3,opt,name=path"`
	Port      *int32  `json:"port,omitempty" protobuf:"varint,4,opt,name=port"`
}

// MatchCondition is a CEL expression a request must satisfy to be sent to
// a webhook or policy.
type MatchCondition struct {
	Name       string `json:"name" protobuf:"bytes,1,opt,name=name"`
	Expression string `json:"expression" protobuf:"bytes,2,opt,name=expression"`
}

// LabelSelector is meta/v1 LabelSelector on the wire: labels that must
// match, and expressions on labels. (meta.LabelSelector is the parsed
// query-parameter form, which has no wire form.) An empty selector
// matches everything.
type LabelSelector struct {
	MatchLabels      map[string]string          `json:"matchLabels,omitempty" protobuf:"bytes,1,rep,name=matchLabels" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	MatchExpressions []LabelSelectorRequirement `json:"matchExpressions,omitempty" protobuf:"bytes,2,rep,name=matchExpressions"`
}

// LabelSelectorRequirement is one expression of a LabelSelector: key In,
// NotIn, Exists or DoesNotExist values.
type LabelSelectorRequirement struct {
	Key      string   `json:"key" protobuf:"bytes,1,opt,name=key"`
	Operator string   `json:"operator" protobuf:"bytes,2,opt,name=operator"`
	Values   []string `json:"values,omitempty" protobuf:"bytes,3,rep,name=values"`
}
