package audit

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/kapi-dev/kapi/auth"
	"github.com/kapi-dev/kapi/meta"
)

// Policy chooses the level of each request's event, in the format of
// kube-apiserver's --audit-policy-file: the first rule that matches a
// request gives its level; a request no rule matches is not recorded.
type Policy struct {
	meta.TypeMeta `json:",inline"`
	// Rules are tried in order.
	Rules []PolicyRule `json:"rules"`
	// OmitStages are stages never recorded.
	OmitStages []Stage `json:"omitStages,omitempty"`
}

// PolicyRule matches requests by user, group, verb and resource or
// path; every list left empty matches everything.
type PolicyRule struct {
	Level      Level    `json:"level"`
	Users      []string `json:"users,omitempty"`
	UserGroups []string `json:"userGroups,omitempty"`
	Verbs      []string `json:"verbs,omitempty"`
	// Resources and Namespaces match resource requests only
	// (Namespaces: "" is cluster-scoped); NonResourceURLs match other
	// requests only ("/healthz*" matches by prefix).
	Resources       []GroupResources `json:"resources,omitempty"`
	Namespaces      []string         `json:"namespaces,omitempty"`
	NonResourceURLs []string         `json:"nonResourceURLs,omitempty"`
	OmitStages      []Stage          `json:"omitStages,omitempty"`
}

// GroupResources matches resources of one API group: "widgets",
// "widgets/status", "*/status", "widgets/*"; none listed matches all.
type GroupResources struct {
	Group         string   `json:"group,omitempty"`
	Resources     []string `json:"resources,omitempty"`
	ResourceNames []string `json:"resourceNames,omitempty"`
}

// LoadPolicy reads a policy file (YAML or JSON).
func LoadPolicy(path string) (*Policy, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	p, err := ParsePolicy(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// ParsePolicy parses a policy and checks its kind, version and levels.
func ParsePolicy(b []byte) (*Policy, error) {
	var p Policy
	if err := yaml.UnmarshalStrict(b, &p); err != nil {
		return nil, err
	}
	if p.Kind != "Policy" || (p.APIVersion != "audit.k8s.io/v1" && p.APIVersion != "audit.k8s.io/v1beta1") {
		return nil, fmt.Errorf("not an audit.k8s.io/v1 Policy: kind %q, apiVersion %q", p.Kind, p.APIVersion)
	}
	for i, r := range p.Rules {
		switch r.Level {
		case LevelNone, LevelMetadata, LevelRequest, LevelRequestResponse:
		default:
			return nil, fmt.Errorf("rules[%d].level: unsupported value %q", i, r.Level)
		}
	}
	return &p, nil
}

// LevelFor returns the level of a request's event and the stages to
// leave out.
func (p *Policy) LevelFor(a auth.Attributes) (Level, []Stage) {
	for _, r := range p.Rules {
		if r.matches(a) {
			return r.Level, append(slices.Clone(p.OmitStages), r.OmitStages...)
		}
	}
	return LevelNone, nil
}

func (r *PolicyRule) matches(a auth.Attributes) bool {
	if len(r.Users) > 0 && (a.User == nil || !slices.Contains(r.Users, a.User.Name)) {
		return false
	}
	if len(r.UserGroups) > 0 && !slices.ContainsFunc(r.UserGroups, a.User.InGroup) {
		return false
	}
	if len(r.Verbs) > 0 && !slices.Contains(r.Verbs, a.Verb) {
		return false
	}
	if !a.ResourceRequest {
		if len(r.Resources) > 0 || len(r.Namespaces) > 0 {
			return false
		}
		return len(r.NonResourceURLs) == 0 || slices.ContainsFunc(r.NonResourceURLs, func(u string) bool { return pathMatches(u, a.Path) })
	}
	if len(r.NonResourceURLs) > 0 {
		return false
	}
	if len(r.Namespaces) > 0 && !slices.Contains(r.Namespaces, a.Namespace) {
		return false
	}
	return len(r.Resources) == 0 || slices.ContainsFunc(r.Resources, func(g GroupResources) bool { return g.matches(a) })
}

func pathMatches(rule, path string) bool {
	if p, ok := strings.CutSuffix(rule, "*"); ok {
		return strings.HasPrefix(path, p)
	}
	return rule == path
}

func (g GroupResources) matches(a auth.Attributes) bool {
	if g.Group != a.APIGroup {
		return false
	}
	if len(g.ResourceNames) > 0 && !slices.Contains(g.ResourceNames, a.Name) {
		return false
	}
	if len(g.Resources) == 0 {
		return true
	}
	full := a.Resource
	if a.Subresource != "" {
		full += "/" + a.Subresource
	}
	for _, res := range g.Resources {
		switch {
		case res == full, res == "*":
			return true
		case strings.HasPrefix(res, "*/") && a.Subresource != "" && res[2:] == a.Subresource:
			return true
		case strings.HasSuffix(res, "/*") && res[:len(res)-2] == a.Resource:
			return true
		}
	}
	return false
}
