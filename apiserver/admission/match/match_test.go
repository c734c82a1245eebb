package match_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/apiserver/admission"
	"github.com/kapi-dev/kapi/apiserver/admission/match"
	ar "github.com/kapi-dev/kapi/kinds/admissionregistrationv1"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// versions serves a kind in v1 and v1beta1 (conversion is not needed to
// match).
type versions []string

func (v versions) Served() []string                                   { return v }
func (versions) Convert(o meta.Object, _ string) (meta.Object, error) { return o, nil }
func (versions) New(string) meta.Object                               { return &meta.Unstructured{} }

func sel(t *testing.T, s string) *meta.LabelSelector {
	t.Helper()
	ls, err := meta.ParseLabelSelector(s)
	if err != nil {
		t.Fatal(err)
	}
	return &ls
}

func scope(s ar.ScopeType) *ar.ScopeType              { return &s }
func policy(p ar.MatchPolicyType) *ar.MatchPolicyType { return &p }

func rule(ops []ar.OperationType, groups, vers, res []string, sc *ar.ScopeType) ar.RuleWithOperations {
	return ar.RuleWithOperations{Operations: ops, Rule: ar.Rule{APIGroups: groups, APIVersions: vers, Resources: res, Scope: sc}}
}

var (
	all     = []ar.OperationType{ar.OperationAll}
	creates = []ar.OperationType{ar.Create}
	star    = []string{"*"}
	stable  = []string{"stable.example.com"}
	v1      = []string{"v1"}
	v1beta1 = []string{"v1beta1"}
	widgets = []string{"widgets"}
)

func widget(op admission.Operation, version, ns, sub string, labels, oldLabels map[string]string) *admission.Request {
	a := &admission.Request{
		Operation: op, Kind: meta.GroupVersionKind{Group: "stable.example.com", Version: version, Kind: "Widget"},
		Resource:  meta.GroupResource{Group: "stable.example.com", Resource: "widgets"},
		Namespace: ns, Name: "w1", Subresource: sub, Namespaced: true, Versions: versions{"v1", "v1beta1"},
	}
	if labels != nil {
		a.Object = &meta.Unstructured{ObjectMeta: meta.ObjectMeta{Name: "w1", Namespace: ns, Labels: labels}}
	}
	if oldLabels != nil {
		a.OldObject = &meta.Unstructured{ObjectMeta: meta.ObjectMeta{Name: "w1", Namespace: ns, Labels: oldLabels}}
	}
	return a
}

func gadget(op admission.Operation) *admission.Request {
	return &admission.Request{
		Operation: op, Kind: meta.GroupVersionKind{Group: "stable.example.com", Version: "v1", Kind: "Gadget"},
		Resource: meta.GroupResource{Group: "stable.example.com", Resource: "gadgets"}, Name: "g1",
		Object: &meta.Unstructured{}, Versions: versions{"v1"},
	}
}

func namespace(op admission.Operation, name string, labels map[string]string) *admission.Request {
	a := &admission.Request{
		Operation: op, Kind: meta.GroupVersionKind{Version: "v1", Kind: "Namespace"},
		Resource: meta.GroupResource{Resource: "namespaces"}, Name: name,
	}
	o := &meta.Unstructured{ObjectMeta: meta.ObjectMeta{Name: name, Labels: labels}}
	if op == admission.Delete {
		a.OldObject = o
	} else {
		a.Object = o
	}
	return a
}

// nsLabels knows namespaces "team-a" (team=a) and "team-b" (team=b).
func nsLabels(_ context.Context, name string) (map[string]string, bool, error) {
	switch name {
	case "team-a":
		return map[string]string{"team": "a"}, true, nil
	case "team-b":
		return map[string]string{"team": "b"}, true, nil
	case "broken":
		return nil, false, errors.New("lister down")
	}
	return nil, false, nil
}

func matched(version string) match.Result {
	return matchedKind("widgets", "Widget", version, "")
}

func matchedKind(resource, kind, version, sub string) match.Result {
	return match.Result{
		Matched: true, Version: version, Subresource: sub,
		Resource: meta.GroupVersionResource{Group: "stable.example.com", Version: version, Resource: resource},
		Kind:     meta.GroupVersionKind{Group: "stable.example.com", Version: version, Kind: kind},
	}
}

// Each case follows kube's rules matcher (predicates/rules), namespace
// and object matchers and the Equivalent lookup of generic/webhook.go
// and policy/matching.
func TestMatch(t *testing.T) {
	ruleAll := rule(all, star, star, star, nil)
	for _, tc := range []struct {
		name string
		a    *admission.Request
		c    match.Criteria
		want match.Result
		err  string
	}{
		{"wildcards", widget(admission.Create, "v1", "team-a", "", map[string]string{}, nil),
			match.Criteria{Rules: []ar.RuleWithOperations{ruleAll}}, matched("v1"), ""},
		{"operation not listed", widget(admission.Update, "v1", "team-a", "", map[string]string{}, map[string]string{}),
			match.Criteria{Rules: []ar.RuleWithOperations{rule(creates, star, star, star, nil)}}, match.Result{}, ""},
		{"other group", widget(admission.Create, "v1", "team-a", "", map[string]string{}, nil),
			match.Criteria{Rules: []ar.RuleWithOperations{rule(all, []string{"apps"}, star, star, nil)}}, match.Result{}, ""},
		{"resource named", widget(admission.Create, "v1", "team-a", "", map[string]string{}, nil),
			match.Criteria{Rules: []ar.RuleWithOperations{rule(all, stable, v1, widgets, nil)}}, matched("v1"), ""},
		{"main resource rule skips subresource", widget(admission.Update, "v1", "team-a", "status", map[string]string{}, map[string]string{}),
			match.Criteria{Rules: []ar.RuleWithOperations{rule(all, stable, v1, widgets, nil)}}, match.Result{}, ""},
		{"resource/subresource", widget(admission.Update, "v1", "team-a", "status", map[string]string{}, map[string]string{}),
			match.Criteria{Rules: []ar.RuleWithOperations{rule(all, stable, v1, []string{"widgets/status"}, nil)}},
			matchedKind("widgets", "Widget", "v1", "status"), ""},
		{"*/subresource", widget(admission.Update, "v1", "team-a", "scale", map[string]string{}, map[string]string{}),
			match.Criteria{Rules: []ar.RuleWithOperations{rule(all, star, star, []string{"*/scale"}, nil)}},
			matchedKind("widgets", "Widget", "v1", "scale"), ""},
		{"resource/* matches main resource", widget(admission.Create, "v1", "team-a", "", map[string]string{}, nil),
			match.Criteria{Rules: []ar.RuleWithOperations{rule(all, star, star, []string{"widgets/*"}, nil)}}, matched("v1"), ""},
		{"* skips subresources", widget(admission.Update, "v1", "team-a", "status", map[string]string{}, map[string]string{}),
			match.Criteria{Rules: []ar.RuleWithOperations{rule(all, star, star, star, nil)}}, match.Result{}, ""},
		{"*/* matches subresources", widget(admission.Update, "v1", "team-a", "status", map[string]string{}, map[string]string{}),
			match.Criteria{Rules: []ar.RuleWithOperations{rule(all, star, star, []string{"*/*"}, nil)}},
			matchedKind("widgets", "Widget", "v1", "status"), ""},
		{"namespaced scope, namespaced object", widget(admission.Create, "v1", "team-a", "", map[string]string{}, nil),
			match.Criteria{Rules: []ar.RuleWithOperations{rule(all, star, star, star, scope(ar.NamespacedScope))}}, matched("v1"), ""},
		{"cluster scope, namespaced object", widget(admission.Create, "v1", "team-a", "", map[string]string{}, nil),
			match.Criteria{Rules: []ar.RuleWithOperations{rule(all, star, star, star, scope(ar.ClusterScope))}}, match.Result{}, ""},
		{"cluster scope, cluster object", gadget(admission.Create),
			match.Criteria{Rules: []ar.RuleWithOperations{rule(all, star, star, star, scope(ar.ClusterScope))}},
			matchedKind("gadgets", "Gadget", "v1", ""), ""},
		{"namespaced scope, cluster object", gadget(admission.Create),
			match.Criteria{Rules: []ar.RuleWithOperations{rule(all, star, star, star, scope(ar.NamespacedScope))}}, match.Result{}, ""},
		{"namespaces are cluster-scoped", namespace(admission.Create, "team-c", nil),
			match.Criteria{Rules: []ar.RuleWithOperations{rule(all, star, star, star, scope(ar.NamespacedScope))}}, match.Result{}, ""},
		{"* scope", gadget(admission.Create),
			match.Criteria{Rules: []ar.RuleWithOperations{rule(all, star, star, star, scope(ar.AllScopes))}},
			matchedKind("gadgets", "Gadget", "v1", ""), ""},

		// matchPolicy
		{"exact: other version does not match", widget(admission.Create, "v1beta1", "team-a", "", map[string]string{}, nil),
			match.Criteria{Rules: []ar.RuleWithOperations{rule(all, stable, v1, widgets, nil)}, MatchPolicy: policy(ar.Exact)}, match.Result{}, ""},
		{"equivalent: v1beta1 request, v1 rule", widget(admission.Create, "v1beta1", "team-a", "", map[string]string{}, nil),
			match.Criteria{Rules: []ar.RuleWithOperations{rule(all, stable, v1, widgets, nil)}, MatchPolicy: policy(ar.Equivalent)}, matched("v1"), ""},
		{"nil matchPolicy is Equivalent", widget(admission.Create, "v1", "team-a", "", map[string]string{}, nil),
			match.Criteria{Rules: []ar.RuleWithOperations{rule(all, stable, v1beta1, widgets, nil)}}, matched("v1beta1"), ""},
		{"own version first, whatever the rule order", widget(admission.Create, "v1beta1", "team-a", "", map[string]string{}, nil),
			match.Criteria{Rules: []ar.RuleWithOperations{rule(all, stable, v1, widgets, nil), rule(all, stable, v1beta1, widgets, nil)}}, matched("v1beta1"), ""},
		{"equivalent keeps the operation", widget(admission.Update, "v1beta1", "team-a", "", map[string]string{}, map[string]string{}),
			match.Criteria{Rules: []ar.RuleWithOperations{rule(creates, stable, v1, widgets, nil)}}, match.Result{}, ""},
		{"equivalent subresource", widget(admission.Update, "v1beta1", "team-a", "status", map[string]string{}, map[string]string{}),
			match.Criteria{Rules: []ar.RuleWithOperations{rule(all, stable, v1, []string{"widgets/status"}, nil)}},
			matchedKind("widgets", "Widget", "v1", "status"), ""},
		{"version not served", widget(admission.Create, "v1", "team-a", "", map[string]string{}, nil),
			match.Criteria{Rules: []ar.RuleWithOperations{rule(all, stable, []string{"v2"}, widgets, nil)}}, match.Result{}, ""},

		// objectSelector
		{"object labels", widget(admission.Create, "v1", "team-a", "", map[string]string{"aw": "yes"}, nil),
			match.Criteria{Rules: []ar.RuleWithOperations{ruleAll}, ObjectSelector: sel(t, "aw=yes")}, matched("v1"), ""},
		{"object labels differ", widget(admission.Create, "v1", "team-a", "", map[string]string{"aw": "no"}, nil),
			match.Criteria{Rules: []ar.RuleWithOperations{ruleAll}, ObjectSelector: sel(t, "aw=yes")}, match.Result{}, ""},
		{"old object labels match an update", widget(admission.Update, "v1", "team-a", "", map[string]string{}, map[string]string{"aw": "yes"}),
			match.Criteria{Rules: []ar.RuleWithOperations{ruleAll}, ObjectSelector: sel(t, "aw=yes")}, matched("v1"), ""},
		{"delete by old labels", widget(admission.Delete, "v1", "team-a", "", nil, map[string]string{"aw": "yes"}),
			match.Criteria{Rules: []ar.RuleWithOperations{ruleAll}, ObjectSelector: sel(t, "aw=yes")}, matched("v1"), ""},
		{"negative selector on no labels", widget(admission.Create, "v1", "team-a", "", map[string]string{}, nil),
			match.Criteria{Rules: []ar.RuleWithOperations{ruleAll}, ObjectSelector: sel(t, "!aw")}, matched("v1"), ""},
		{"empty selector", widget(admission.Create, "v1", "team-a", "", map[string]string{}, nil),
			match.Criteria{Rules: []ar.RuleWithOperations{ruleAll}, ObjectSelector: sel(t, "")}, matched("v1"), ""},

		// namespaceSelector
		{"namespace labels", widget(admission.Create, "v1", "team-a", "", map[string]string{}, nil),
			match.Criteria{Rules: []ar.RuleWithOperations{ruleAll}, NamespaceSelector: sel(t, "team=a")}, matched("v1"), ""},
		{"namespace labels differ", widget(admission.Create, "v1", "team-b", "", map[string]string{}, nil),
			match.Criteria{Rules: []ar.RuleWithOperations{ruleAll}, NamespaceSelector: sel(t, "team=a")}, match.Result{}, ""},
		{"cluster object ignores namespaceSelector", gadget(admission.Create),
			match.Criteria{Rules: []ar.RuleWithOperations{ruleAll}, NamespaceSelector: sel(t, "team=a")},
			matchedKind("gadgets", "Gadget", "v1", ""), ""},
		{"namespace create by its own labels", namespace(admission.Create, "team-c", map[string]string{"team": "a"}),
			match.Criteria{Rules: []ar.RuleWithOperations{ruleAll}, NamespaceSelector: sel(t, "team=a")},
			match.Result{Matched: true, Version: "v1", Resource: meta.GroupVersionResource{Version: "v1", Resource: "namespaces"},
				Kind: meta.GroupVersionKind{Version: "v1", Kind: "Namespace"}}, ""},
		{"namespace delete by stored labels", namespace(admission.Delete, "team-b", map[string]string{"team": "a"}),
			match.Criteria{Rules: []ar.RuleWithOperations{ruleAll}, NamespaceSelector: sel(t, "team=a")}, match.Result{}, ""},
		{"missing namespace", widget(admission.Create, "v1", "gone", "", map[string]string{}, nil),
			match.Criteria{Rules: []ar.RuleWithOperations{ruleAll}, NamespaceSelector: sel(t, "team=a")}, match.Result{}, `namespaces "gone" not found`},
		{"missing namespace, no rule matches", widget(admission.Create, "v1", "gone", "", map[string]string{}, nil),
			match.Criteria{Rules: []ar.RuleWithOperations{rule(creates, []string{"apps"}, star, star, nil)}, NamespaceSelector: sel(t, "team=a")}, match.Result{}, ""},
		{"lister error", widget(admission.Create, "v1", "broken", "", map[string]string{}, nil),
			match.Criteria{Rules: []ar.RuleWithOperations{ruleAll}, NamespaceSelector: sel(t, "team=a")}, match.Result{}, "Internal error occurred: lister down"},

		// policies: resource names, exclusions, no rules
		{"resourceNames", widget(admission.Create, "v1", "team-a", "", map[string]string{}, nil),
			match.Criteria{ResourceRules: []ar.NamedRuleWithOperations{{ResourceNames: []string{"w1"}, RuleWithOperations: ruleAll}}}, matched("v1"), ""},
		{"resourceNames other", widget(admission.Create, "v1", "team-a", "", map[string]string{}, nil),
			match.Criteria{ResourceRules: []ar.NamedRuleWithOperations{{ResourceNames: []string{"w2"}, RuleWithOperations: ruleAll}}}, match.Result{}, ""},
		{"excluded", widget(admission.Create, "v1", "team-a", "", map[string]string{}, nil),
			match.Criteria{ResourceRules: []ar.NamedRuleWithOperations{{RuleWithOperations: ruleAll}},
				ExcludeRules: []ar.NamedRuleWithOperations{{ResourceNames: []string{"w1"}, RuleWithOperations: ruleAll}}}, match.Result{}, ""},
		{"excluded in an equivalent version", widget(admission.Create, "v1beta1", "team-a", "", map[string]string{}, nil),
			match.Criteria{ResourceRules: []ar.NamedRuleWithOperations{{RuleWithOperations: ruleAll}},
				ExcludeRules: []ar.NamedRuleWithOperations{{RuleWithOperations: rule(all, stable, v1, widgets, nil)}}}, match.Result{}, ""},
		{"exact does not exclude other versions", widget(admission.Create, "v1beta1", "team-a", "", map[string]string{}, nil),
			match.Criteria{ResourceRules: []ar.NamedRuleWithOperations{{RuleWithOperations: ruleAll}}, MatchPolicy: policy(ar.Exact),
				ExcludeRules: []ar.NamedRuleWithOperations{{RuleWithOperations: rule(all, stable, v1, widgets, nil)}}}, matched("v1beta1"), ""},
		{"no rules match everything", widget(admission.Delete, "v1", "team-a", "", nil, map[string]string{}),
			match.Criteria{}, matched("v1"), ""},
		{"no rules, selector still applies", widget(admission.Create, "v1", "team-b", "", map[string]string{}, nil),
			match.Criteria{NamespaceSelector: sel(t, "team=a")}, match.Result{}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := match.Match(context.Background(), tc.a, &tc.c, nsLabels)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				if _, ok := err.(*status.Error); !ok {
					t.Fatalf("error %T is not a Status", err)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
		})
	}
}
