package rbac

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/kapi-dev/kapi/auth"
	"github.com/kapi-dev/kapi/meta"
)

// Labels of the default roles.
const (
	aggregateToAdmin = "rbac.authorization.k8s.io/aggregate-to-admin"
	aggregateToEdit  = "rbac.authorization.k8s.io/aggregate-to-edit"
	aggregateToView  = "rbac.authorization.k8s.io/aggregate-to-view"
	bootstrapping    = "kubernetes.io/bootstrapping"
)

// MonitoringGroup is the group bound to the system:monitoring role:
// members may read /metrics and the health checks one by one.
const MonitoringGroup = "system:monitoring"

var (
	readVerbs  = []string{"get", "list", "watch"}
	writeVerbs = []string{"create", "delete", "deletecollection", "patch", "update"}
)

// BootstrapPolicy returns kube-apiserver's default roles and bindings as
// far as a kapi server serves them:
//
//   - cluster-admin (everything), bound to the group system:masters;
//   - admin, edit and view, which aggregate the ClusterRoles labelled
//     rbac.authorization.k8s.io/aggregate-to-admin, -edit and -view (edit
//     is aggregated into admin, view into edit), with
//     system:aggregate-to-admin letting admins manage Roles and
//     RoleBindings in their namespaces and ask what others may do there
//     (LocalSubjectAccessReview);
//   - system:auth-delegator, bound to no one, which a server delegating
//     its authentication and authorization to this one is given: it may
//     create TokenReviews and SubjectAccessReviews;
//   - system:discovery, system:basic-user and system:public-info-viewer,
//     which let authenticated users read discovery and OpenAPI and ask
//     what they may do (kubectl auth can-i, whoami), and everyone read
//     the health checks and /version;
//   - system:monitoring, bound to the group of the same name, which reads
//     /metrics and each health check on its own (/readyz/etcd): those
//     paths may tell more about the server than ok or not, so, as in
//     kube-apiserver, they are not public.
//
// Hosts add the view and edit rules of their own kinds with
// [AggregatedRoles].
func BootstrapPolicy() []meta.Object {
	nonResource := func(urls ...string) []PolicyRule {
		return []PolicyRule{{Verbs: []string{"get"}, NonResourceURLs: urls}}
	}
	objs := []meta.Object{
		clusterRole("cluster-admin", nil, nil,
			PolicyRule{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}},
			PolicyRule{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}}),
		clusterRole("admin", nil, &AggregationRule{ClusterRoleSelectors: []LabelSelector{{MatchLabels: map[string]string{aggregateToAdmin: "true"}}}}),
		clusterRole("edit", map[string]string{aggregateToAdmin: "true"}, &AggregationRule{ClusterRoleSelectors: []LabelSelector{{MatchLabels: map[string]string{aggregateToEdit: "true"}}}}),
		clusterRole("view", map[string]string{aggregateToEdit: "true"}, &AggregationRule{ClusterRoleSelectors: []LabelSelector{{MatchLabels: map[string]string{aggregateToView: "true"}}}}),
		clusterRole("system:aggregate-to-admin", map[string]string{aggregateToAdmin: "true"}, nil,
			PolicyRule{Verbs: []string{"create"}, APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"localsubjectaccessreviews"}},
			PolicyRule{Verbs: append(append([]string{}, writeVerbs...), readVerbs...), APIGroups: []string{Group}, Resources: []string{"rolebindings", "roles"}}),
		clusterRole("system:auth-delegator", nil, nil,
			PolicyRule{Verbs: []string{"create"}, APIGroups: []string{"authentication.k8s.io"}, Resources: []string{"tokenreviews"}},
			PolicyRule{Verbs: []string{"create"}, APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"subjectaccessreviews"}}),
		clusterRole("system:discovery", nil, nil, nonResource("/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi", "/openapi/*", "/readyz", "/version", "/version/")...),
		clusterRole("system:basic-user", nil, nil,
			PolicyRule{Verbs: []string{"create"}, APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"selfsubjectaccessreviews", "selfsubjectrulesreviews"}},
			PolicyRule{Verbs: []string{"create"}, APIGroups: []string{"authentication.k8s.io"}, Resources: []string{"selfsubjectreviews"}}),
		clusterRole("system:public-info-viewer", nil, nil, nonResource("/healthz", "/livez", "/readyz", "/version", "/version/")...),
		clusterRole("system:monitoring", nil, nil, nonResource("/healthz", "/healthz/*", "/livez", "/livez/*", "/metrics", "/metrics/slis", "/readyz", "/readyz/*")...),
		clusterRoleBinding("cluster-admin", "cluster-admin", group(auth.SystemPrivilegedGroup)),
		clusterRoleBinding("system:discovery", "system:discovery", group(auth.AllAuthenticated)),
		clusterRoleBinding("system:basic-user", "system:basic-user", group(auth.AllAuthenticated)),
		clusterRoleBinding("system:public-info-viewer", "system:public-info-viewer", group(auth.AllAuthenticated), group(auth.AllUnauthenticated)),
		clusterRoleBinding("system:monitoring", "system:monitoring", group(MonitoringGroup)),
	}
	return objs
}

// AggregatedRoles returns two ClusterRoles for resources of a group:
// "<name>-view" (get, list, watch), aggregated into view, edit and admin,
// and "<name>-edit" (create, delete, deletecollection, patch, update),
// aggregated into edit and admin, the way kube's default roles cover the
// built-in kinds.
func AggregatedRoles(name, group string, resources ...string) []meta.Object {
	return []meta.Object{
		clusterRole(name+"-view", map[string]string{aggregateToView: "true", aggregateToEdit: "true", aggregateToAdmin: "true"}, nil,
			PolicyRule{Verbs: readVerbs, APIGroups: []string{group}, Resources: resources}),
		clusterRole(name+"-edit", map[string]string{aggregateToEdit: "true", aggregateToAdmin: "true"}, nil,
			PolicyRule{Verbs: writeVerbs, APIGroups: []string{group}, Resources: resources}),
	}
}

func clusterRole(name string, labels map[string]string, agg *AggregationRule, rules ...PolicyRule) *ClusterRole {
	l := map[string]string{bootstrapping: "rbac-defaults"}
	for k, v := range labels {
		l[k] = v
	}
	cr := &ClusterRole{Rules: rules, AggregationRule: agg}
	cr.Kind, cr.APIVersion = "ClusterRole", Group+"/v1"
	cr.Name, cr.Labels = name, l
	cr.Annotations = map[string]string{"rbac.authorization.kubernetes.io/autoupdate": "true"}
	return cr
}

func clusterRoleBinding(name, role string, subjects ...Subject) *ClusterRoleBinding {
	b := &ClusterRoleBinding{Subjects: subjects, RoleRef: RoleRef{APIGroup: Group, Kind: "ClusterRole", Name: role}}
	b.Kind, b.APIVersion = "ClusterRoleBinding", Group+"/v1"
	b.Name, b.Labels = name, map[string]string{bootstrapping: "rbac-defaults"}
	b.Annotations = map[string]string{"rbac.authorization.kubernetes.io/autoupdate": "true"}
	return b
}

func group(name string) Subject { return Subject{Kind: "Group", APIGroup: Group, Name: name} }

// Bootstrap creates RBAC objects (such as [BootstrapPolicy]'s) through the server's handler as a member of
// system:masters, leaving any that already exist as they are. Call it
// after every kind is registered.
func Bootstrap(ctx context.Context, h http.Handler, objs ...meta.Object) error {
	ctx = auth.WithUser(ctx, &auth.User{Name: "system:kapi:bootstrap", Groups: []string{auth.SystemPrivilegedGroup, auth.AllAuthenticated}})
	for _, o := range objs {
		body, err := json.Marshal(o)
		if err != nil {
			return err
		}
		var res string
		switch o.(type) {
		case *ClusterRole:
			res = "clusterroles"
		case *ClusterRoleBinding:
			res = "clusterrolebindings"
		case *Role:
			res = "namespaces/" + o.GetObjectMeta().Namespace + "/roles"
		case *RoleBinding:
			res = "namespaces/" + o.GetObjectMeta().Namespace + "/rolebindings"
		default:
			return fmt.Errorf("rbac: cannot bootstrap a %T", o)
		}
		req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/apis/"+Group+"/v1/"+res, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusCreated && rec.Code != http.StatusConflict {
			return fmt.Errorf("rbac: creating %s %q: %d %s", res, o.GetObjectMeta().Name, rec.Code, rec.Body.String())
		}
	}
	return nil
}
