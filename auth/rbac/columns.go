package rbac

import (
	"strings"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/meta"
)

// The descriptions of the Role columns, as kube's Tables of bindings
// give them.
const (
	roleRefDoc        = "roleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error."
	clusterRoleRefDoc = "roleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error."
)

const serviceAccountKind = "ServiceAccount"

// bindingColumns are the columns of kube's Table of a binding kind: Role
// (kind/name), Age, and for -o wide the Users, Groups and
// ServiceAccounts (namespace/name) among its subjects. noun names the
// kind in the descriptions; of reads a binding's role and subjects.
func bindingColumns(noun, roleDoc string, of func(meta.Object) (RoleRef, []Subject)) []apiserver.PrinterColumn {
	subjects := func(kind string) func(meta.Object) any {
		return func(obj meta.Object) any {
			_, s := of(obj)
			return subjectNames(s, kind)
		}
	}
	return []apiserver.PrinterColumn{
		{Name: "Role", Type: "string", Description: roleDoc, Cell: func(obj meta.Object) any {
			ref, _ := of(obj)
			return ref.Kind + "/" + ref.Name
		}},
		apiserver.AgeColumn(),
		{Name: "Users", Type: "string", Priority: 1, Description: "Users in the " + noun, Cell: subjects("User")},
		{Name: "Groups", Type: "string", Priority: 1, Description: "Groups in the " + noun, Cell: subjects("Group")},
		{Name: "ServiceAccounts", Type: "string", Priority: 1, Description: "ServiceAccounts in the " + noun, Cell: subjects(serviceAccountKind)},
	}
}

// subjectNames lists the subjects of one kind, separated by ", ":
// service accounts as namespace/name, users and groups by name.
func subjectNames(subjects []Subject, kind string) string {
	var names []string
	for _, s := range subjects {
		switch {
		case s.Kind != kind:
		case kind == serviceAccountKind:
			names = append(names, s.Namespace+"/"+s.Name)
		default:
			names = append(names, s.Name)
		}
	}
	return strings.Join(names, ", ")
}
