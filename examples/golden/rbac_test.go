package golden

import (
	"encoding/json"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/auth/rbac"
	"github.com/kapi-dev/kapi/codec/protobuf"
)

// TestRBACKinds compares the protobuf and JSON of package rbac's kinds
// with apimachinery's, both ways.
func TestRBACKinds(t *testing.T) {
	tm := func(kind string) metav1.TypeMeta {
		return metav1.TypeMeta{Kind: kind, APIVersion: "rbac.authorization.k8s.io/v1"}
	}
	objs := []struct {
		name string
		k8s  runtime.Object
		kapi any
	}{
		{"clusterrole aggregated", &rbacv1.ClusterRole{TypeMeta: tm("ClusterRole"),
			ObjectMeta: metav1.ObjectMeta{Name: "edit", Labels: map[string]string{"rbac.authorization.k8s.io/aggregate-to-admin": "true"}},
			AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{
				{MatchLabels: map[string]string{"rbac.authorization.k8s.io/aggregate-to-edit": "true", "b": "x"}},
				{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "k", Operator: metav1.LabelSelectorOpIn, Values: []string{"a", "b"}},
					{Key: "e", Operator: metav1.LabelSelectorOpExists}}},
			}},
			Rules: []rbacv1.PolicyRule{{Verbs: []string{"get"}, APIGroups: []string{"stable.example.com"}, Resources: []string{"widgets", "widgets/status"}}},
		}, &rbac.ClusterRole{}},
		{"clusterrole non-resource", &rbacv1.ClusterRole{TypeMeta: tm("ClusterRole"), ObjectMeta: metav1.ObjectMeta{Name: "system:discovery"},
			Rules: []rbacv1.PolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/api", "/apis/*"}}}}, &rbac.ClusterRole{}},
		{"clusterrolebinding", &rbacv1.ClusterRoleBinding{TypeMeta: tm("ClusterRoleBinding"), ObjectMeta: metav1.ObjectMeta{Name: "cluster-admin"},
			Subjects: []rbacv1.Subject{{Kind: "Group", APIGroup: "rbac.authorization.k8s.io", Name: "system:masters"}},
			RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "cluster-admin"}}, &rbac.ClusterRoleBinding{}},
		{"role", &rbacv1.Role{TypeMeta: tm("Role"), ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: "ns1"},
			Rules: []rbacv1.PolicyRule{{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"a"}}}}, &rbac.Role{}},
		{"role without rules", &rbacv1.Role{TypeMeta: tm("Role"), ObjectMeta: metav1.ObjectMeta{Name: "empty", Namespace: "ns1"}}, &rbac.Role{}},
		{"rolebinding", &rbacv1.RoleBinding{TypeMeta: tm("RoleBinding"), ObjectMeta: metav1.ObjectMeta{Name: "alice-edit", Namespace: "ns1"},
			Subjects: []rbacv1.Subject{{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: "alice"}, {Kind: "ServiceAccount", Name: "robot", Namespace: "ns1"}},
			RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "edit"}}, &rbac.RoleBinding{}},
	}
	k, ser := newK8s(t), protobuf.New()
	for _, o := range objs {
		t.Run(o.name, func(t *testing.T) {
			kapi := fromJSON(t, o.k8s, o.kapi)
			wj, _ := json.Marshal(o.k8s)
			gj, _ := json.Marshal(kapi)
			if string(gj) != string(wj) {
				t.Errorf("JSON:\n kapi         %s\n apimachinery %s", gj, wj)
			}
			want := k.encode(t, o.k8s)
			got := kapiEncode(t, ser, kapi)
			sameBytes(t, "protobuf", got, want)
			semanticEqual(t, "kapi → apimachinery", k.decode(t, got, o.k8s), o.k8s)
			kapiEqual(t, "apimachinery → kapi", kapiDecode(t, ser, want, kapi), kapi)
		})
	}
}
