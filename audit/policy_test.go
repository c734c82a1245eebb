package audit

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/auth"
)

const policyYAML = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: None
  users: ["system:kube-proxy"]
- level: None
  nonResourceURLs: ["/healthz*", "/version"]
- level: RequestResponse
  resources:
  - group: rbac.authorization.k8s.io
    resources: ["roles", "rolebindings"]
- level: Request
  verbs: ["create", "update", "patch"]
  namespaces: ["ns1"]
  resources:
  - group: stable.example.com
    resources: ["widgets/status", "*/scale"]
- level: Metadata
  userGroups: ["dev"]
  omitStages: ["ResponseStarted"]
- level: None
  resources:
  - group: stable.example.com
    resourceNames: ["secret-widget"]
- level: Metadata
`

func TestPolicy(t *testing.T) {
	p, err := ParsePolicy([]byte(policyYAML))
	if err != nil {
		t.Fatal(err)
	}
	alice := &auth.User{Name: "alice"}
	dev := &auth.User{Name: "bob", Groups: []string{"dev"}}
	res := func(u *auth.User, verb, group, resource, sub, ns, name string) auth.Attributes {
		return auth.Attributes{User: u, Verb: verb, ResourceRequest: true, APIGroup: group, Resource: resource, Subresource: sub, Namespace: ns, Name: name}
	}
	tests := []struct {
		name string
		a    auth.Attributes
		want Level
		omit int
	}{
		{"user rule", auth.Attributes{User: &auth.User{Name: "system:kube-proxy"}, Verb: "get", Path: "/api"}, LevelNone, 0},
		{"non-resource prefix", auth.Attributes{User: alice, Verb: "get", Path: "/healthz/ping"}, LevelNone, 0},
		{"non-resource exact", auth.Attributes{User: alice, Verb: "get", Path: "/version"}, LevelNone, 0},
		{"non-resource rule skips resources", res(alice, "get", "", "healthz", "", "", ""), LevelMetadata, 1},
		{"group and resources", res(alice, "create", "rbac.authorization.k8s.io", "roles", "", "ns2", "r"), LevelRequestResponse, 1},
		{"subresource listed", res(alice, "update", "stable.example.com", "widgets", "status", "ns1", "w"), LevelRequest, 1},
		{"*/scale", res(alice, "patch", "stable.example.com", "gadgets", "scale", "ns1", "g"), LevelRequest, 1},
		{"verb not listed", res(alice, "get", "stable.example.com", "widgets", "status", "ns1", "w"), LevelMetadata, 1},
		{"namespace not listed", res(alice, "update", "stable.example.com", "widgets", "status", "ns2", "w"), LevelMetadata, 1},
		{"user group with its own omitted stages", res(dev, "get", "stable.example.com", "widgets", "", "ns1", "w"), LevelMetadata, 2},
		{"resourceNames", res(alice, "get", "stable.example.com", "widgets", "", "ns1", "secret-widget"), LevelNone, 0},
		{"catch-all", res(alice, "get", "stable.example.com", "widgets", "", "ns1", "w"), LevelMetadata, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, omit := p.LevelFor(tc.a)
			if l != tc.want || (l != LevelNone && len(omit) != tc.omit) {
				t.Errorf("got %s %v, want %s with %d omitted stages", l, omit, tc.want, tc.omit)
			}
		})
	}
}

func TestParsePolicyErrors(t *testing.T) {
	for name, in := range map[string]string{
		"wrong kind":    "apiVersion: audit.k8s.io/v1\nkind: Event\n",
		"bad level":     "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Everything\n",
		"unknown field": "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  user: [a]\n",
		"not YAML":      "{",
	} {
		if _, err := ParsePolicy([]byte(in)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestLogger(t *testing.T) {
	var buf bytes.Buffer
	l := NewLogger(&buf, nil)
	l.Log(&Event{Level: LevelMetadata, Stage: StageResponseComplete, AuditID: NewID(), Verb: "get", User: UserInfo{Username: "alice"}}, nil)
	l.Log(&Event{Level: LevelMetadata, Stage: StageResponseStarted}, []Stage{StageResponseStarted})
	l.Log(&Event{Level: LevelNone, Stage: StageResponseComplete}, nil)
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("%d lines: %s", len(lines), buf.String())
	}
	var ev map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &ev); err != nil {
		t.Fatal(err)
	}
	if ev["kind"] != "Event" || ev["apiVersion"] != "audit.k8s.io/v1" || ev["user"].(map[string]any)["username"] != "alice" || len(ev["auditID"].(string)) != 36 {
		t.Errorf("event: %s", lines[0])
	}
}
