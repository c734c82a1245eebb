package apiextensionsv1

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// updateBase is the definition the updates below replace, as kube-apiserver
// holds it after the create: defaulted, with a conversion webhook.
const updateBase = `{"metadata":{"name":"ups.example.com"},"spec":{"group":"example.com","scope":"Namespaced",
 "names":{"plural":"ups","singular":"up","kind":"Up","listKind":"UpList"},
 "versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}],
 "conversion":{"strategy":"Webhook","webhook":{"clientConfig":{"url":"https://x.example.com/c"},"conversionReviewVersions":["v1"]}}},
 "status":{"storedVersions":["v1"]}}`

// TestValidateUpdate checks the rules of an update as kube-apiserver
// v1.37 answered them: group and plural never change, scope and kind
// not once the definition is established; the name is not checked again
// against them; a caBundle is checked once the one replaced was good.
func TestValidateUpdate(t *testing.T) {
	tests := []struct {
		name        string
		established bool
		oldCA       []byte
		change      func(*CustomResourceDefinition)
		want        []string
	}{
		{"scope before established", false, nil, func(d *CustomResourceDefinition) { d.Spec.Scope = ClusterScoped }, nil},
		{"kind before established", false, nil, func(d *CustomResourceDefinition) { d.Spec.Names.Kind, d.Spec.Names.ListKind = "Up2", "Up2List" }, nil},
		{"scope", true, nil, func(d *CustomResourceDefinition) { d.Spec.Scope = ClusterScoped },
			[]string{`spec.scope: Invalid value: "Cluster": field is immutable`}},
		{"kind", true, nil, func(d *CustomResourceDefinition) { d.Spec.Names.Kind, d.Spec.Names.ListKind = "Up2", "Up2List" },
			[]string{`spec.names.kind: Invalid value: "Up2": field is immutable`}},
		{"plural and group", false, nil, func(d *CustomResourceDefinition) { d.Spec.Names.Plural, d.Spec.Group = "ups2", "example2.com" },
			[]string{`spec.group: Invalid value: "example2.com": field is immutable`, `spec.names.plural: Invalid value: "ups2": field is immutable`}},
		{"all", true, nil, func(d *CustomResourceDefinition) {
			d.Spec.Scope, d.Spec.Names.Kind, d.Spec.Names.ListKind = ClusterScoped, "Up2", "Up2List"
			d.Spec.Names.Plural, d.Spec.Group = "ups2", "example2.com"
		}, []string{`spec.scope: Invalid value: "Cluster": field is immutable`, `spec.names.kind: Invalid value: "Up2": field is immutable`,
			`spec.group: Invalid value: "example2.com": field is immutable`, `spec.names.plural: Invalid value: "ups2": field is immutable`}},
		{"singular", true, nil, func(d *CustomResourceDefinition) { d.Spec.Names.Singular = "upx" }, nil},
		{"bad caBundle before established", false, nil, func(d *CustomResourceDefinition) { caBundle(d, []byte("foo")) }, nil},
		{"bad caBundle after a bad one", true, []byte("bar"), func(d *CustomResourceDefinition) { caBundle(d, []byte("foo")) }, nil},
		{"bad caBundle", true, nil, func(d *CustomResourceDefinition) { caBundle(d, []byte("foo")) },
			[]string{`spec.conversion.webhookClientConfig.caBundle: Invalid value: "Zm9v": unable to load root certificates: unable to parse bytes as PEM block`}},
		{"caBundle with a bad certificate", true, nil, func(d *CustomResourceDefinition) {
			caBundle(d, []byte("-----BEGIN CERTIFICATE-----\nabcd\n-----END CERTIFICATE-----\n"))
		}, []string{`spec.conversion.webhookClientConfig.caBundle: Invalid value: "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCmFiY2QKLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo=": unable to load root certificates: failed to parse certificate: x509: malformed certificate`}},
		{"review versions none known", true, nil, func(d *CustomResourceDefinition) { d.Spec.Conversion.Webhook.ConversionReviewVersions = []string{"v9"} },
			[]string{`spec.conversion.conversionReviewVersions: Invalid value: ["v9"]: must include at least one of v1, v1beta1`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			old := updateDefinition(t)
			if tc.established {
				old.SetCondition(EstablishedCondition(old), old.CreationTimestamp)
			}
			if tc.oldCA != nil {
				caBundle(old, tc.oldCA)
			}
			crd := updateDefinition(t)
			if tc.oldCA != nil {
				caBundle(crd, tc.oldCA)
			}
			tc.change(crd)
			var got []string
			for _, e := range validate(crd, old, nil) {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("errors (-kube-apiserver +kapi):\n%s", diff)
			}
		})
	}
}

func updateDefinition(t *testing.T) *CustomResourceDefinition {
	t.Helper()
	crd := &CustomResourceDefinition{}
	if err := json.Unmarshal([]byte(updateBase), crd); err != nil {
		t.Fatal(err)
	}
	return crd
}

func caBundle(crd *CustomResourceDefinition, b []byte) {
	crd.Spec.Conversion.Webhook.ClientConfig.CABundle = b
}

// TestEstablishedCondition: a conversion webhook whose caBundle trusts
// nothing keeps the definition from being established, in kube's words.
func TestEstablishedCondition(t *testing.T) {
	crd := &CustomResourceDefinition{}
	if got := EstablishedCondition(crd); got.Status != ConditionTrue || got.Reason != "InitialNamesAccepted" {
		t.Errorf("without a webhook: %+v", got)
	}
	crd.Spec.Conversion = &CustomResourceConversion{Strategy: WebhookConverter,
		Webhook: &WebhookConversion{ClientConfig: &WebhookClientConfig{CABundle: []byte("foo")}}}
	want := CustomResourceDefinitionCondition{Type: Established, Status: ConditionFalse, Reason: "InvalidCABundle",
		Message: "The conversion webhook CABundle is invalid"}
	if diff := cmp.Diff(want, EstablishedCondition(crd)); diff != "" {
		t.Errorf("bad caBundle (-want +got):\n%s", diff)
	}
}

// TestApprovalCondition: the KubernetesAPIApprovalPolicyConformant
// condition of a protected group's definition, as kube-apiserver v1.37
// set it.
func TestApprovalCondition(t *testing.T) {
	tests := []struct {
		group, annotation string
		want              *CustomResourceDefinitionCondition
	}{
		{"example.com", "", nil},
		{"a.x-k8s.io", "", nil},
		{"a.k8s.io", "https://github.com/kubernetes/kubernetes/pull/78458", &CustomResourceDefinitionCondition{Type: KubernetesAPIApprovalPolicyConformant,
			Status: ConditionTrue, Reason: "ApprovedAnnotation", Message: "approved in https://github.com/kubernetes/kubernetes/pull/78458"}},
		{"a.k8s.io", "unapproved, experimental-only", &CustomResourceDefinitionCondition{Type: KubernetesAPIApprovalPolicyConformant,
			Status: ConditionFalse, Reason: "UnapprovedAnnotation", Message: `not approved: "unapproved, experimental-only"`}},
		{"kubernetes.io", "", &CustomResourceDefinitionCondition{Type: KubernetesAPIApprovalPolicyConformant, Status: ConditionFalse, Reason: "MissingAnnotation",
			Message: `protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111`}},
		{"a.kubernetes.io", "yes", &CustomResourceDefinitionCondition{Type: KubernetesAPIApprovalPolicyConformant, Status: ConditionFalse, Reason: "InvalidAnnotation",
			Message: `protected groups must have approval annotation "api-approved.kubernetes.io" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111`}},
	}
	for _, tc := range tests {
		crd := &CustomResourceDefinition{Spec: CustomResourceDefinitionSpec{Group: tc.group}}
		if tc.annotation != "" {
			crd.Annotations = map[string]string{APIApprovedAnnotation: tc.annotation}
		}
		if diff := cmp.Diff(tc.want, ApprovalCondition(crd)); diff != "" {
			t.Errorf("%s %q (-kube-apiserver +kapi):\n%s", tc.group, tc.annotation, diff)
		}
	}
}

// TestApprovalOnUpdate: an update that leaves the approval as it was is
// not held to it; one that makes it invalid is.
func TestApprovalOnUpdate(t *testing.T) {
	old := &CustomResourceDefinition{Spec: CustomResourceDefinitionSpec{Group: "a.k8s.io"}}
	crd := &CustomResourceDefinition{Spec: CustomResourceDefinitionSpec{Group: "a.k8s.io"}}
	if errs := approvalErrors(crd, old); len(errs) != 0 {
		t.Errorf("missing before and after: %v", errs)
	}
	old.Annotations = map[string]string{APIApprovedAnnotation: "https://example.com/pull/1"}
	want := `metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111`
	if errs := approvalErrors(crd, old); errs.Error() != want {
		t.Errorf("approval dropped: %v, want %s", errs, want)
	}
}

// TestSetDefaults: kube-apiserver's v1 defaults: singular and listKind
// from kind, conversion None, a webhook Service's port 443, and no
// conversionReviewVersions (a webhook without them is refused).
func TestSetDefaults(t *testing.T) {
	crd := &CustomResourceDefinition{Spec: CustomResourceDefinitionSpec{Names: CustomResourceDefinitionNames{Kind: "Up"},
		Conversion: &CustomResourceConversion{Strategy: WebhookConverter, Webhook: &WebhookConversion{
			ClientConfig: &WebhookClientConfig{Service: &ServiceReference{Namespace: "n", Name: "s"}}}}}}
	setDefaults(crd)
	port := int32(443)
	want := CustomResourceDefinitionSpec{Names: CustomResourceDefinitionNames{Kind: "Up", Singular: "up", ListKind: "UpList"},
		Conversion: &CustomResourceConversion{Strategy: WebhookConverter, Webhook: &WebhookConversion{
			ClientConfig: &WebhookClientConfig{Service: &ServiceReference{Namespace: "n", Name: "s", Port: &port}}}}}
	if diff := cmp.Diff(want, crd.Spec); diff != "" {
		t.Errorf("defaults (-kube-apiserver +kapi):\n%s", diff)
	}
}
