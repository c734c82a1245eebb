package admissionregistrationv1

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/status"
)

// TestDefaults compares each kind's defaults with what kube-apiserver
// stored for a minimal object (read back from it).
func TestDefaults(t *testing.T) {
	svc := WebhookClientConfig{Service: &ServiceReference{Namespace: "n", Name: "s"}}
	rule := RuleWithOperations{Operations: []OperationType{Create}, Rule: Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}}
	wantRule := rule
	wantRule.Scope = ptrTo(AllScopes)
	wantSvc := WebhookClientConfig{Service: &ServiceReference{Namespace: "n", Name: "s", Port: ptrTo(int32(443))}}

	m := &MutatingWebhookConfiguration{Webhooks: []MutatingWebhook{{Name: "a.b.c", ClientConfig: svc, Rules: []RuleWithOperations{rule}}}}
	defaultMutatingWebhooks(m)
	wantM := []MutatingWebhook{{Name: "a.b.c", ClientConfig: wantSvc, Rules: []RuleWithOperations{wantRule},
		FailurePolicy: ptrTo(Fail), MatchPolicy: ptrTo(Equivalent), NamespaceSelector: &LabelSelector{}, ObjectSelector: &LabelSelector{},
		TimeoutSeconds: ptrTo(int32(10)), ReinvocationPolicy: ptrTo(NeverReinvocationPolicy)}}
	if diff := cmp.Diff(wantM, m.Webhooks); diff != "" {
		t.Errorf("mutating webhook (-want +got):\n%s", diff)
	}

	v := &ValidatingWebhookConfiguration{Webhooks: []ValidatingWebhook{{Name: "a.b.c", ClientConfig: WebhookClientConfig{URL: ptrTo("https://x")}, TimeoutSeconds: ptrTo(int32(3))}}}
	defaultValidatingWebhooks(v)
	wantV := []ValidatingWebhook{{Name: "a.b.c", ClientConfig: WebhookClientConfig{URL: ptrTo("https://x")},
		FailurePolicy: ptrTo(Fail), MatchPolicy: ptrTo(Equivalent), NamespaceSelector: &LabelSelector{}, ObjectSelector: &LabelSelector{},
		TimeoutSeconds: ptrTo(int32(3))}}
	if diff := cmp.Diff(wantV, v.Webhooks); diff != "" {
		t.Errorf("validating webhook (-want +got):\n%s", diff)
	}

	named := NamedRuleWithOperations{RuleWithOperations: rule}
	wantNamed := NamedRuleWithOperations{RuleWithOperations: wantRule}
	vap := ValidatingAdmissionPolicySpec{MatchConstraints: &MatchResources{ResourceRules: []NamedRuleWithOperations{named}, ExcludeResourceRules: []NamedRuleWithOperations{named}}}
	defaultValidatingPolicySpec(&vap)
	wantMR := &MatchResources{ResourceRules: []NamedRuleWithOperations{wantNamed}, ExcludeResourceRules: []NamedRuleWithOperations{wantNamed},
		MatchPolicy: ptrTo(Equivalent), NamespaceSelector: &LabelSelector{}, ObjectSelector: &LabelSelector{}}
	if diff := cmp.Diff(ValidatingAdmissionPolicySpec{FailurePolicy: ptrTo(Fail), MatchConstraints: wantMR}, vap); diff != "" {
		t.Errorf("validating policy (-want +got):\n%s", diff)
	}

	// A mutating policy's reinvocationPolicy and a binding's
	// parameterNotFoundAction have no default: they are required.
	mp := MutatingAdmissionPolicySpec{}
	defaultMutatingPolicySpec(&mp)
	if diff := cmp.Diff(MutatingAdmissionPolicySpec{FailurePolicy: ptrTo(Fail)}, mp); diff != "" {
		t.Errorf("mutating policy (-want +got):\n%s", diff)
	}
	var none *MatchResources
	defaultMatchResources(none) // a binding without matchResources keeps none
}

func sideEffects(s SideEffectClass) *SideEffectClass { return &s }

// TestWebhookUpdateKeepsOldFlaws checks what kube lets an update keep
// that a create may not have: side effects Some, review versions none of
// which it knows, duplicate names, bad selector values, and unchanged
// match conditions that would no longer pass. (Bad values stay allowed
// in matchExpressions only: kube checks matchLabels always.)
func TestWebhookUpdateKeepsOldFlaws(t *testing.T) {
	hook := func(name string, se SideEffectClass, versions ...string) ValidatingWebhook {
		return ValidatingWebhook{Name: name, ClientConfig: WebhookClientConfig{URL: ptrTo("https://x")}, SideEffects: sideEffects(se),
			AdmissionReviewVersions: versions, NamespaceSelector: &LabelSelector{MatchExpressions: []LabelSelectorRequirement{{Key: "k", Operator: "In", Values: []string{"bad value"}}}},
			MatchConditions: []MatchCondition{{Name: "c", Expression: "old"}}}
	}
	flawed := []ValidatingWebhook{hook("a.b.c", SideEffectClassSome, "v9"), hook("a.b.c", SideEffectClassUnknown, "v9")}
	var checked []string
	opts := Options{CheckExpression: func(e Expression) *status.FieldError {
		checked = append(checked, e.Expression)
		return nil
	}}
	created := validateValidatingWebhooks(flawed, createOptions(opts))
	if len(created) == 0 || len(checked) != 2 {
		t.Fatalf("a create of flawed webhooks passed (%v) or checked %v", created, checked)
	}
	checked = nil
	if errs := validateValidatingWebhooks(flawed, validatingUpdateOptions(opts, flawed, flawed)); len(errs) != 0 {
		t.Errorf("an update keeping the stored flaws was refused: %v", errs)
	}
	if len(checked) != 0 {
		t.Errorf("unchanged match conditions were checked again: %v", checked)
	}

	clean := []ValidatingWebhook{{Name: "a.b.c", ClientConfig: WebhookClientConfig{URL: ptrTo("https://x")}, SideEffects: sideEffects(SideEffectClassNone), AdmissionReviewVersions: []string{"v1"}}}
	got := validateValidatingWebhooks(flawed, validatingUpdateOptions(opts, clean, flawed))
	var fields []string
	for _, e := range got {
		fields = append(fields, e.Field)
	}
	want := []string{
		"webhooks[0].sideEffects", "webhooks[0].namespaceSelector.matchExpressions[0].values[0]", "webhooks[0].admissionReviewVersions",
		"webhooks[1].sideEffects", "webhooks[1].namespaceSelector.matchExpressions[0].values[0]", "webhooks[1].admissionReviewVersions", "webhooks[1].name",
	}
	if diff := cmp.Diff(want, fields); diff != "" {
		t.Errorf("an update bringing new flaws (-want +got):\n%s", diff)
	}
}

// TestCheckExpression checks what the CEL hook is given (the field, the
// place, whether params and authorizer are declared, whether the
// expression was stored already) and that its error is reported.
func TestCheckExpression(t *testing.T) {
	var got []Expression
	opts := Options{CheckExpression: func(e Expression) *status.FieldError {
		got = append(got, e)
		if e.Expression == "bad" {
			return status.InvalidValue(e.Path, e.Expression, "compilation failed")
		}
		return nil
	}}
	rules := &MatchResources{ResourceRules: []NamedRuleWithOperations{{RuleWithOperations: RuleWithOperations{Operations: []OperationType{Create},
		Rule: Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}}}}}
	defaultMatchResources(rules)
	old := &ValidatingAdmissionPolicy{Spec: ValidatingAdmissionPolicySpec{Validations: []Validation{{Expression: "kept"}}}}
	p := &ValidatingAdmissionPolicy{Spec: ValidatingAdmissionPolicySpec{FailurePolicy: ptrTo(Fail), MatchConstraints: rules,
		ParamKind:       &ParamKind{APIVersion: "v1", Kind: "ConfigMap"},
		MatchConditions: []MatchCondition{{Name: "m", Expression: "true"}},
		Variables:       []Variable{{Name: "v", Expression: "1"}},
		Validations:     []Validation{{Expression: "kept", MessageExpression: "'m'"}, {Expression: "bad"}},
	}}
	p.Name = "policy"
	errs := validateValidatingPolicy(p, old, opts)
	if diff := cmp.Diff(status.FieldErrors{status.InvalidValue(status.NewPath("spec", "validations[1]", "expression"), "bad", "compilation failed")}, errs,
		cmp.AllowUnexported(status.FieldError{})); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	want := []Expression{
		{Path: status.NewPath("spec", "matchConditions[0]", "expression"), Kind: MatchConditionExpression, Expression: "true", HasParams: true, HasAuthorizer: true},
		{Path: status.NewPath("spec", "variables[0]", "expression"), Kind: VariableExpression, Expression: "1", VariableName: "v", HasParams: true, HasAuthorizer: true},
		{Path: status.NewPath("spec", "validations[0]", "expression"), Kind: ValidationExpression, Expression: "kept", HasParams: true, HasAuthorizer: true, Stored: true},
		{Path: status.NewPath("spec", "validations[0]", "messageExpression"), Kind: MessageExpression, Expression: "'m'", HasParams: true},
		{Path: status.NewPath("spec", "validations[1]", "expression"), Kind: ValidationExpression, Expression: "bad", HasParams: true, HasAuthorizer: true},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(status.Path{})); diff != "" {
		t.Errorf("expressions checked (-want +got):\n%s", diff)
	}
}

// TestCells checks the ParamKind and ParamRef cells against what kube's
// printer showed for the same objects.
func TestCells(t *testing.T) {
	sel := &LabelSelector{MatchLabels: map[string]string{"b": "2", "a": "1"}, MatchExpressions: []LabelSelectorRequirement{
		{Key: "k", Operator: "In", Values: []string{"x", "y"}}, {Key: "e", Operator: "Exists"}}}
	cases := []struct {
		name string
		got  string
		want string
	}{
		{"no paramKind", paramKindCell(nil), "<unset>"},
		{"paramKind", paramKindCell(&ParamKind{APIVersion: "v1", Kind: "ConfigMap"}), "v1/ConfigMap"},
		{"no paramRef", paramRefCell(nil), "<unset>"},
		{"name only", paramRefCell(&ParamRef{Name: "cm"}), "*/cm"},
		{"namespace and name", paramRefCell(&ParamRef{Name: "cm", Namespace: "ns"}), "ns/cm"},
		{"selector", paramRefCell(&ParamRef{Selector: sel}),
			"&LabelSelector{MatchLabels:map[string]string{a: 1,b: 2,},MatchExpressions:[]LabelSelectorRequirement{LabelSelectorRequirement{Key:k,Operator:In,Values:[x y],},LabelSelectorRequirement{Key:e,Operator:Exists,Values:[],},},}"},
		{"namespace only", paramRefCell(&ParamRef{Namespace: "ns"}), "<unset>"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, c.got, c.want)
		}
	}
}
