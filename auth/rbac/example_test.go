package rbac_test

import (
	"context"
	"fmt"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/auth"
	"github.com/kapi-dev/kapi/auth/rbac"
)

func ExampleAuthorizer() {
	authz := rbac.New()
	srv := apiserver.New(apiserver.Options{
		Authorizer:          auth.Authorizers{auth.PrivilegedGroups{auth.SystemPrivilegedGroup}, authz},
		ValidatingAdmission: []apiserver.AdmissionFunc{authz.Admit},
	})
	defer srv.Close()
	if err := authz.Register(srv); err != nil {
		panic(err)
	}
	// The default roles, and alice is an admin of ns1.
	binding := &rbac.RoleBinding{
		Subjects: []rbac.Subject{{Kind: "User", APIGroup: rbac.Group, Name: "alice"}},
		RoleRef:  rbac.RoleRef{APIGroup: rbac.Group, Kind: "ClusterRole", Name: "admin"},
	}
	binding.Kind, binding.APIVersion, binding.Name, binding.Namespace = "RoleBinding", rbac.Group+"/v1", "alice", "ns1"
	ctx := context.Background()
	if err := rbac.Bootstrap(ctx, srv, append(rbac.BootstrapPolicy(), binding)...); err != nil {
		panic(err)
	}
	alice := &auth.User{Name: "alice", Groups: []string{auth.AllAuthenticated}}
	for _, ns := range []string{"ns1", "ns2"} {
		d, _, _ := authz.Authorize(ctx, auth.Attributes{User: alice, Verb: "create", ResourceRequest: true,
			APIGroup: rbac.Group, Resource: "roles", Namespace: ns})
		fmt.Println(ns, d == auth.DecisionAllow)
	}
	// Output:
	// ns1 true
	// ns2 false
}
