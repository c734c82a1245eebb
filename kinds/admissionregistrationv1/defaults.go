package admissionregistrationv1

// kube-apiserver's defaults for admissionregistration.k8s.io/v1, applied
// on every write before validation, as it applies them on decoding.

func ptrTo[T any](v T) *T { return &v }

// defaultMutatingWebhooks defaults each webhook of a mutating
// configuration: what validating webhooks get, and reinvocationPolicy
// Never.
func defaultMutatingWebhooks(c *MutatingWebhookConfiguration) {
	for i := range c.Webhooks {
		h := &c.Webhooks[i]
		defaultWebhook(&h.FailurePolicy, &h.MatchPolicy, &h.NamespaceSelector, &h.ObjectSelector, &h.TimeoutSeconds)
		if h.ReinvocationPolicy == nil {
			h.ReinvocationPolicy = ptrTo(NeverReinvocationPolicy)
		}
		defaultClientConfig(&h.ClientConfig)
		defaultRules(h.Rules)
	}
}

// defaultValidatingWebhooks defaults each webhook of a validating
// configuration.
func defaultValidatingWebhooks(c *ValidatingWebhookConfiguration) {
	for i := range c.Webhooks {
		h := &c.Webhooks[i]
		defaultWebhook(&h.FailurePolicy, &h.MatchPolicy, &h.NamespaceSelector, &h.ObjectSelector, &h.TimeoutSeconds)
		defaultClientConfig(&h.ClientConfig)
		defaultRules(h.Rules)
	}
}

// defaultWebhook sets what both webhook kinds default: failurePolicy
// Fail, matchPolicy Equivalent, selectors that match everything and a
// 10 second timeout.
func defaultWebhook(fp **FailurePolicyType, mp **MatchPolicyType, ns, obj **LabelSelector, timeout **int32) {
	if *fp == nil {
		*fp = ptrTo(Fail)
	}
	if *mp == nil {
		*mp = ptrTo(Equivalent)
	}
	if *ns == nil {
		*ns = &LabelSelector{}
	}
	if *obj == nil {
		*obj = &LabelSelector{}
	}
	if *timeout == nil {
		*timeout = ptrTo(int32(10))
	}
}

// defaultClientConfig gives a service reference port 443.
func defaultClientConfig(cc *WebhookClientConfig) {
	if cc.Service != nil && cc.Service.Port == nil {
		cc.Service.Port = ptrTo(int32(443))
	}
}

// defaultRules gives each rule scope "*".
func defaultRules(rules []RuleWithOperations) {
	for i := range rules {
		if rules[i].Scope == nil {
			rules[i].Scope = ptrTo(AllScopes)
		}
	}
}

// defaultValidatingPolicySpec sets failurePolicy Fail and defaults the
// match constraints.
func defaultValidatingPolicySpec(s *ValidatingAdmissionPolicySpec) {
	if s.FailurePolicy == nil {
		s.FailurePolicy = ptrTo(Fail)
	}
	defaultMatchResources(s.MatchConstraints)
}

// defaultMutatingPolicySpec sets failurePolicy Fail and defaults the
// match constraints; reinvocationPolicy has no default in v1 and is
// required.
func defaultMutatingPolicySpec(s *MutatingAdmissionPolicySpec) {
	if s.FailurePolicy == nil {
		s.FailurePolicy = ptrTo(Fail)
	}
	defaultMatchResources(s.MatchConstraints)
}

// defaultMatchResources sets matchPolicy Equivalent, selectors that match
// everything, and scope "*" on every rule, of match resources present.
func defaultMatchResources(m *MatchResources) {
	if m == nil {
		return
	}
	if m.MatchPolicy == nil {
		m.MatchPolicy = ptrTo(Equivalent)
	}
	if m.NamespaceSelector == nil {
		m.NamespaceSelector = &LabelSelector{}
	}
	if m.ObjectSelector == nil {
		m.ObjectSelector = &LabelSelector{}
	}
	for _, rules := range [][]NamedRuleWithOperations{m.ResourceRules, m.ExcludeResourceRules} {
		for i := range rules {
			if rules[i].Scope == nil {
				rules[i].Scope = ptrTo(AllScopes)
			}
		}
	}
}
