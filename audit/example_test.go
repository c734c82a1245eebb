package audit_test

import (
	"fmt"

	"github.com/kapi-dev/kapi/audit"
	"github.com/kapi-dev/kapi/auth"
)

func ExamplePolicy_LevelFor() {
	p, err := audit.ParsePolicy([]byte(`
apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: None
  nonResourceURLs: ["/healthz*"]
- level: RequestResponse
  resources:
  - group: rbac.authorization.k8s.io
- level: Metadata
`))
	if err != nil {
		panic(err)
	}
	alice := &auth.User{Name: "alice"}
	for _, a := range []auth.Attributes{
		{User: alice, Verb: "get", Path: "/healthz"},
		{User: alice, Verb: "create", ResourceRequest: true, APIGroup: "rbac.authorization.k8s.io", Resource: "rolebindings", Namespace: "ns1"},
		{User: alice, Verb: "list", ResourceRequest: true, APIGroup: "stable.example.com", Resource: "widgets"},
	} {
		level, _ := p.LevelFor(a)
		fmt.Println(level)
	}
	// Output:
	// None
	// RequestResponse
	// Metadata
}
