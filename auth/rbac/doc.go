// Package rbac serves rbac.authorization.k8s.io/v1 Roles, ClusterRoles,
// RoleBindings and ClusterRoleBindings on a kapi server and authorizes
// requests with them, with kube-apiserver's semantics: verbs, API groups,
// resources ("widgets/status" subresources, "*" wildcards),
// resourceNames and non-resource URLs; ClusterRole aggregation by label
// selectors; privilege-escalation prevention on writes of roles and
// bindings; the default roles (cluster-admin, admin, edit, view,
// system:discovery, system:basic-user).
//
// Rules are evaluated from an index of the server's watch caches, rebuilt
// when an RBAC object changes, never with a store round trip per request.
//
//	authz := rbac.New()
//	srv := apiserver.New(apiserver.Options{
//		Authenticator:       chain,
//		Authorizer:          auth.Authorizers{auth.PrivilegedGroups{auth.SystemPrivilegedGroup}, authz},
//		ValidatingAdmission: []apiserver.AdmissionFunc{authz.Admit},
//	})
//	srv.Register(myKind)
//	if err := authz.Register(srv); err != nil { ... }
//	err := rbac.Bootstrap(ctx, srv, rbac.BootstrapPolicy()...)
package rbac
