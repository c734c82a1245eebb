package e2e

import (
	"context"
	"strings"
	"testing"

	admv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kapi-dev/kapi/examples/internal/kubectltest"
)

// TestAdmissionKindsClientset: client-go's typed clientset, in protobuf,
// creates a ValidatingAdmissionPolicy and its binding, reads back kube's
// defaults, sees spec changes bump the generation, writes the policy's
// status through /status, and gets kube's 422 for an invalid binding.
func TestAdmissionKindsClientset(t *testing.T) {
	ts := startServer(t)
	var ct contentTypes
	cfg := restConfig(ts.URL)
	cfg.ContentType = protobufType
	cfg.WrapTransport = ct.wrap
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	policies := cs.AdmissionregistrationV1().ValidatingAdmissionPolicies()
	p, err := policies.Create(ctx, &admv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: "replicas"},
		Spec: admv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: &admv1.MatchResources{ResourceRules: []admv1.NamedRuleWithOperations{{RuleWithOperations: admv1.RuleWithOperations{
				Operations: []admv1.OperationType{admv1.Create}, Rule: admv1.Rule{APIGroups: []string{"stable.example.com"}, APIVersions: []string{"v1"}, Resources: []string{"widgets"}}}}}},
			Validations: []admv1.Validation{{Expression: "object.spec.replicas <= 5"}},
		}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	mc := p.Spec.MatchConstraints
	if *p.Spec.FailurePolicy != admv1.Fail || *mc.MatchPolicy != admv1.Equivalent || mc.NamespaceSelector == nil ||
		*mc.ResourceRules[0].Scope != admv1.AllScopes || p.Generation != 1 {
		t.Errorf("defaults: %+v generation %d", p.Spec, p.Generation)
	}
	ignore := admv1.Ignore
	p.Spec.FailurePolicy = &ignore
	if p, err = policies.Update(ctx, p, metav1.UpdateOptions{}); err != nil || p.Generation != 2 {
		t.Fatalf("update: %v, generation %d", err, p.Generation)
	}
	p.Status.ObservedGeneration = 2
	if p, err = policies.UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil || p.Status.ObservedGeneration != 2 || p.Generation != 2 {
		t.Fatalf("update status: %v, %+v", err, p.Status)
	}

	_, err = cs.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().Create(ctx, &admv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "replicas"}, Spec: admv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: "replicas",
			ValidationActions: []admv1.ValidationAction{admv1.Deny, admv1.Warn}}}, metav1.CreateOptions{})
	st, ok := err.(*errors.StatusError)
	if !ok || st.ErrStatus.Code != 422 || len(st.ErrStatus.Details.Causes) != 1 || st.ErrStatus.Details.Causes[0].Field != "spec.validationActions" {
		t.Errorf("invalid binding: %v", err)
	}
	for _, s := range ct.all() {
		if !strings.Contains(s, protobufType+" -> "+protobufType) && !strings.HasPrefix(s, "GET") {
			t.Errorf("not protobuf on the wire: %s", s)
		}
	}
}

// TestKubectlAdmissionKinds: kubectl creates a webhook configuration from
// YAML and prints it as kube-apiserver's Table does.
func TestKubectlAdmissionKinds(t *testing.T) {
	ts := startServer(t)
	k := kubectltest.New(t, ts.URL)
	kubectl(t, k, `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: checks
webhooks:
- name: check.example.com
  clientConfig:
    url: https://hooks.example.com/check
  sideEffects: None
  admissionReviewVersions: ["v1"]
`, "create", "-f", "-")
	out := kubectl(t, k, "", "get", "validatingwebhookconfigurations")
	if !strings.HasPrefix(out, "NAME") || !strings.Contains(strings.SplitN(out, "\n", 2)[0], "WEBHOOKS") || !rowHas(out, "checks", "1") {
		t.Errorf("get:\n%s", out)
	}
	if out := kubectl(t, k, "", "get", "api-extensions", "-o", "name"); !strings.Contains(out, "validatingwebhookconfiguration.admissionregistration.k8s.io/checks") {
		t.Errorf("category api-extensions:\n%s", out)
	}
}
