package rbac

import (
	"testing"

	"github.com/kapi-dev/kapi/auth"
)

func res(verb, group, resource, sub, ns, name string) auth.Attributes {
	return auth.Attributes{ResourceRequest: true, Verb: verb, APIGroup: group, Resource: resource, Subresource: sub, Namespace: ns, Name: name}
}

func TestAllows(t *testing.T) {
	const g = "stable.example.com"
	widgets := PolicyRule{Verbs: []string{"get", "list"}, APIGroups: []string{g}, Resources: []string{"widgets"}}
	tests := []struct {
		name string
		rule PolicyRule
		attr auth.Attributes
		want bool
	}{
		{"verb, group and resource", widgets, res("get", g, "widgets", "", "ns1", "w1"), true},
		{"other verb", widgets, res("delete", g, "widgets", "", "ns1", "w1"), false},
		{"other group", widgets, res("get", "", "widgets", "", "ns1", "w1"), false},
		{"other resource", widgets, res("get", g, "gadgets", "", "", "g1"), false},
		{"a resource does not cover its subresources", widgets, res("get", g, "widgets", "status", "ns1", "w1"), false},
		{"subresource rule", PolicyRule{Verbs: []string{"update"}, APIGroups: []string{g}, Resources: []string{"widgets/status"}}, res("update", g, "widgets", "status", "ns1", "w1"), true},
		{"subresource rule does not cover the resource", PolicyRule{Verbs: []string{"update"}, APIGroups: []string{g}, Resources: []string{"widgets/status"}}, res("update", g, "widgets", "", "ns1", "w1"), false},
		{"*/subresource", PolicyRule{Verbs: []string{"get"}, APIGroups: []string{g}, Resources: []string{"*/scale"}}, res("get", g, "widgets", "scale", "ns1", "w1"), true},
		{"*/subresource, other subresource", PolicyRule{Verbs: []string{"get"}, APIGroups: []string{g}, Resources: []string{"*/scale"}}, res("get", g, "widgets", "status", "ns1", "w1"), false},
		{"* resource covers subresources", PolicyRule{Verbs: []string{"get"}, APIGroups: []string{g}, Resources: []string{"*"}}, res("get", g, "widgets", "status", "ns1", "w1"), true},
		{"* verb", PolicyRule{Verbs: []string{"*"}, APIGroups: []string{g}, Resources: []string{"widgets"}}, res("deletecollection", g, "widgets", "", "ns1", ""), true},
		{"* group", PolicyRule{Verbs: []string{"get"}, APIGroups: []string{"*"}, Resources: []string{"widgets"}}, res("get", "other.io", "widgets", "", "", "x"), true},
		{"resourceNames: listed", PolicyRule{Verbs: []string{"get"}, APIGroups: []string{g}, Resources: []string{"widgets"}, ResourceNames: []string{"w1"}}, res("get", g, "widgets", "", "ns1", "w1"), true},
		{"resourceNames: other name", PolicyRule{Verbs: []string{"get"}, APIGroups: []string{g}, Resources: []string{"widgets"}, ResourceNames: []string{"w1"}}, res("get", g, "widgets", "", "ns1", "w2"), false},
		{"resourceNames: no name (list)", PolicyRule{Verbs: []string{"list"}, APIGroups: []string{g}, Resources: []string{"widgets"}, ResourceNames: []string{"w1"}}, res("list", g, "widgets", "", "ns1", ""), false},
		{"resource rule on a path", widgets, auth.Attributes{Verb: "get", Path: "/apis"}, false},
		{"non-resource URL", PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz"}}, auth.Attributes{Verb: "get", Path: "/healthz"}, true},
		{"non-resource URL prefix", PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/apis/*"}}, auth.Attributes{Verb: "get", Path: "/apis/stable.example.com/v1"}, true},
		{"non-resource URL prefix does not match the bare path", PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/apis/*"}}, auth.Attributes{Verb: "get", Path: "/apis"}, false},
		{"non-resource *", PolicyRule{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}}, auth.Attributes{Verb: "post", Path: "/anything"}, true},
		{"non-resource verb", PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz"}}, auth.Attributes{Verb: "post", Path: "/healthz"}, false},
		{"non-resource rule on a resource", PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"*"}}, res("get", g, "widgets", "", "ns1", "w1"), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := allows(&tc.rule, tc.attr); got != tc.want {
				t.Errorf("allows(%s, %+v) = %v, want %v", compact(tc.rule), tc.attr, got, tc.want)
			}
		})
	}
}

func TestCovers(t *testing.T) {
	const g = "stable.example.com"
	all := PolicyRule{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}}
	edit := PolicyRule{Verbs: []string{"get", "list", "create"}, APIGroups: []string{g}, Resources: []string{"widgets", "widgets/status"}}
	tests := []struct {
		name  string
		owner []PolicyRule
		rule  PolicyRule
		want  bool
	}{
		{"everything covers a rule", []PolicyRule{all}, edit, true},
		{"the same rule", []PolicyRule{edit}, edit, true},
		{"a subset of verbs", []PolicyRule{edit}, PolicyRule{Verbs: []string{"get"}, APIGroups: []string{g}, Resources: []string{"widgets"}}, true},
		{"a verb more", []PolicyRule{edit}, PolicyRule{Verbs: []string{"get", "delete"}, APIGroups: []string{g}, Resources: []string{"widgets"}}, false},
		{"a wildcard is not covered by names", []PolicyRule{edit}, PolicyRule{Verbs: []string{"*"}, APIGroups: []string{g}, Resources: []string{"widgets"}}, false},
		{"named resources covered by an unnamed rule", []PolicyRule{edit}, PolicyRule{Verbs: []string{"get"}, APIGroups: []string{g}, Resources: []string{"widgets"}, ResourceNames: []string{"w1"}}, true},
		{"an unnamed rule not covered by a named one", []PolicyRule{{Verbs: []string{"get"}, APIGroups: []string{g}, Resources: []string{"widgets"}, ResourceNames: []string{"w1"}}}, PolicyRule{Verbs: []string{"get"}, APIGroups: []string{g}, Resources: []string{"widgets"}}, false},
		{"*/status covers widgets/status", []PolicyRule{{Verbs: []string{"get"}, APIGroups: []string{g}, Resources: []string{"*/status"}}}, PolicyRule{Verbs: []string{"get"}, APIGroups: []string{g}, Resources: []string{"widgets/status"}}, true},
		{"URL prefix", []PolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/apis/*"}}}, PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/apis/g"}}, true},
		{"URL not held", []PolicyRule{edit}, PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/metrics"}}, false},
		{"nothing held", nil, edit, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := covers(tc.owner, tc.rule); got != tc.want {
				t.Errorf("covers = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestCompact(t *testing.T) {
	got := compact(PolicyRule{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"pods"}})
	if want := `{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	units := uncovered(nil, []PolicyRule{{Verbs: []string{"get", "list"}, APIGroups: []string{"g"}, Resources: []string{"a"}}})
	if got := compactRules(units); len(got) != 1 || len(got[0].Verbs) != 2 {
		t.Errorf("compactRules = %v", got)
	}
}

func TestAggregate(t *testing.T) {
	sel := func(k string) *AggregationRule {
		return &AggregationRule{ClusterRoleSelectors: []LabelSelector{{MatchLabels: map[string]string{k: "true"}}}}
	}
	get := PolicyRule{Verbs: []string{"get"}, APIGroups: []string{"g"}, Resources: []string{"a"}}
	put := PolicyRule{Verbs: []string{"update"}, APIGroups: []string{"g"}, Resources: []string{"a"}}
	crs := []*ClusterRole{
		{Rules: nil, AggregationRule: sel("to-edit")},
		{Rules: []PolicyRule{put}, AggregationRule: sel("to-view")},
		{Rules: []PolicyRule{get}},
		{AggregationRule: &AggregationRule{ClusterRoleSelectors: []LabelSelector{{}}}},
	}
	crs[0].Name = "edit"
	crs[1].Name, crs[1].Labels = "view-and-put", map[string]string{"to-edit": "true"}
	crs[2].Name, crs[2].Labels = "getter", map[string]string{"to-view": "true"}
	crs[3].Name = "empty-selector"
	got := aggregate(crs)
	if len(got["edit"]) != 2 {
		t.Errorf("edit aggregates %v, want the rules of view-and-put and, through it, getter", got["edit"])
	}
	if len(got["view-and-put"]) != 2 || len(got["getter"]) != 1 {
		t.Errorf("aggregated: %v", got)
	}
	if len(got["empty-selector"]) != 0 {
		t.Errorf("an empty selector aggregated %v", got["empty-selector"])
	}
}
