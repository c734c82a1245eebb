package rbac

import (
	"fmt"
	"strings"

	"github.com/kapi-dev/kapi/auth"
)

// Wildcards of rules.
const (
	all = "*"
)

// allows reports whether a rule allows a request, with kube's semantics:
// "*" matches any verb, group, resource (subresources included) or URL;
// "widgets/status" matches that subresource, "*/status" that subresource
// of any resource; resourceNames limit a rule to those names; a
// non-resource URL ending in "*" matches by prefix.
func allows(r *PolicyRule, a auth.Attributes) bool {
	if !matchesAny(r.Verbs, a.Verb) {
		return false
	}
	if !a.ResourceRequest {
		return nonResourceURLMatches(r.NonResourceURLs, a.Path)
	}
	return matchesAny(r.APIGroups, a.APIGroup) &&
		resourceMatches(r.Resources, a.Resource, a.Subresource) &&
		(len(r.ResourceNames) == 0 || (a.Name != "" && contains(r.ResourceNames, a.Name)))
}

func matchesAny(list []string, v string) bool {
	for _, e := range list {
		if e == all || e == v {
			return true
		}
	}
	return false
}

func resourceMatches(list []string, resource, sub string) bool {
	full := resource
	if sub != "" {
		full += "/" + sub
	}
	for _, e := range list {
		switch {
		case e == all, e == full:
			return true
		case sub != "" && strings.HasPrefix(e, "*/") && e[2:] == sub:
			return true
		}
	}
	return false
}

func nonResourceURLMatches(list []string, path string) bool {
	for _, e := range list {
		switch {
		case e == all, e == path:
			return true
		case strings.HasSuffix(e, "*") && strings.HasPrefix(path, e[:len(e)-1]):
			return true
		}
	}
	return false
}

// breakdown splits a rule into rules of one verb and one resource (or
// URL) each, the units escalation checks compare.
func breakdown(r PolicyRule) []PolicyRule {
	var out []PolicyRule
	for _, verb := range r.Verbs {
		for _, url := range r.NonResourceURLs {
			out = append(out, PolicyRule{Verbs: []string{verb}, NonResourceURLs: []string{url}})
		}
		for _, group := range r.APIGroups {
			for _, res := range r.Resources {
				if len(r.ResourceNames) == 0 {
					out = append(out, PolicyRule{Verbs: []string{verb}, APIGroups: []string{group}, Resources: []string{res}})
				}
				for _, name := range r.ResourceNames {
					out = append(out, PolicyRule{Verbs: []string{verb}, APIGroups: []string{group}, Resources: []string{res}, ResourceNames: []string{name}})
				}
			}
		}
	}
	return out
}

// covers reports whether the owner's rules grant everything the rule
// does: a user may hand out only permissions they hold.
func covers(owner []PolicyRule, r PolicyRule) bool {
	for _, unit := range breakdown(r) {
		if !coveredByAny(owner, unit) {
			return false
		}
	}
	return true
}

// uncovered lists the single-verb units of rules the owner does not
// hold.
func uncovered(owner []PolicyRule, rules []PolicyRule) []PolicyRule {
	var out []PolicyRule
	for _, r := range rules {
		for _, unit := range breakdown(r) {
			if !coveredByAny(owner, unit) {
				out = append(out, unit)
			}
		}
	}
	return out
}

func coveredByAny(owner []PolicyRule, unit PolicyRule) bool {
	for i := range owner {
		if ruleCovers(&owner[i], &unit) {
			return true
		}
	}
	return false
}

// ruleCovers reports whether o grants all of the single unit u.
func ruleCovers(o, u *PolicyRule) bool {
	if !matchesAny(o.Verbs, u.Verbs[0]) {
		return false
	}
	if len(u.NonResourceURLs) > 0 {
		return nonResourceURLCovers(o.NonResourceURLs, u.NonResourceURLs[0])
	}
	if !matchesAny(o.APIGroups, u.APIGroups[0]) || !resourceCovers(o.Resources, u.Resources[0]) {
		return false
	}
	if len(o.ResourceNames) == 0 {
		return true
	}
	return len(u.ResourceNames) == 1 && contains(o.ResourceNames, u.ResourceNames[0])
}

func resourceCovers(list []string, res string) bool {
	for _, e := range list {
		switch {
		case e == all, e == res:
			return true
		case strings.HasPrefix(e, "*/"):
			if _, sub, ok := strings.Cut(res, "/"); ok && sub == e[2:] {
				return true
			}
		}
	}
	return false
}

func nonResourceURLCovers(list []string, url string) bool {
	for _, e := range list {
		switch {
		case e == all, e == url:
			return true
		case strings.HasSuffix(e, "*") && strings.HasPrefix(url, e[:len(e)-1]):
			return true
		}
	}
	return false
}

// compact writes a rule as kube's escalation errors do:
//
//	{APIGroups:["stable.example.com"], Resources:["widgets"], Verbs:["get"]}
func compact(r PolicyRule) string {
	var parts []string
	add := func(name string, v []string) {
		if len(v) > 0 {
			parts = append(parts, fmt.Sprintf("%s:%q", name, v))
		}
	}
	add("APIGroups", r.APIGroups)
	add("Resources", r.Resources)
	add("NonResourceURLs", r.NonResourceURLs)
	add("ResourceNames", r.ResourceNames)
	add("Verbs", r.Verbs)
	return "{" + strings.Join(parts, ", ") + "}"
}
