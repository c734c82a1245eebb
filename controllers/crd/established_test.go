package crd_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/kapi-dev/kapi/kinds/apiextensionsv1"
)

// TestInvalidCABundleNotEstablished: a definition whose conversion
// webhook's caBundle holds no certificate is taken, its names accepted,
// but it is not established, with kube-apiserver's reason and message;
// once the bundle is good it is.
func TestInvalidCABundleNotEstablished(t *testing.T) {
	e := start(t)
	d := manifest(t, twoVersionCRD)
	url := "https://x.example.com/convert"
	d.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.WebhookConverter,
		Webhook: &apiextensionsv1.WebhookConversion{ConversionReviewVersions: []string{"v1"},
			ClientConfig: &apiextensionsv1.WebhookClientConfig{URL: &url, CABundle: []byte("foo")}}}
	b, _ := json.Marshal(d)
	if code, body := e.do(t, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "application/json", string(b)); code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, body)
	}
	established := func(status, reason, message string) func() (bool, string) {
		return func() (bool, string) {
			got := e.definition(t, d.Name)
			c := got.Condition(apiextensionsv1.Established)
			if c == nil {
				return false, "no Established condition"
			}
			return c.Status == status && c.Reason == reason && c.Message == message, c.Status + " " + c.Reason + ": " + c.Message
		}
	}
	eventually(t, "Established False", established(apiextensionsv1.ConditionFalse, "InvalidCABundle", "The conversion webhook CABundle is invalid"))

	got := e.definition(t, d.Name)
	got.Spec.Conversion.Webhook.ClientConfig.CABundle = nil
	b, _ = json.Marshal(&got)
	if code, body := e.do(t, "PUT", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"+d.Name, "application/json", string(b)); code != http.StatusOK {
		t.Fatalf("update: %d %s", code, body)
	}
	eventually(t, "Established True", established(apiextensionsv1.ConditionTrue, "InitialNamesAccepted", "the initial names have been accepted"))
}

// TestNoVersionServed: a definition that serves no version is taken and
// established, as kube-apiserver takes it, but its kind is not served;
// serving a version serves it, and the definition deletes.
func TestNoVersionServed(t *testing.T) {
	e := start(t)
	d := manifest(t, crontabCRD)
	d.Spec.Versions[0].Served = false
	b, _ := json.Marshal(d)
	if code, body := e.do(t, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "application/json", string(b)); code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, body)
	}
	eventually(t, "established", func() (bool, string) {
		got := e.definition(t, d.Name)
		return got.IsEstablished(), mustJSON(got.Status)
	})
	if code, body := e.do(t, "GET", crontabs, "", ""); code != http.StatusNotFound {
		t.Fatalf("kind served: %d %s", code, body)
	}

	got := e.definition(t, d.Name)
	got.Spec.Versions[0].Served = true
	b, _ = json.Marshal(&got)
	if code, body := e.do(t, "PUT", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"+d.Name, "application/json", string(b)); code != http.StatusOK {
		t.Fatalf("update: %d %s", code, body)
	}
	eventually(t, "kind served", func() (bool, string) {
		code, body := e.do(t, "GET", crontabs, "", "")
		return code == http.StatusOK, body
	})

	got = e.definition(t, d.Name)
	got.Spec.Versions[0].Served = false
	b, _ = json.Marshal(&got)
	if code, body := e.do(t, "PUT", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"+d.Name, "application/json", string(b)); code != http.StatusOK {
		t.Fatalf("update: %d %s", code, body)
	}
	eventually(t, "kind no longer served", func() (bool, string) {
		code, body := e.do(t, "GET", crontabs, "", "")
		return code == http.StatusNotFound, body
	})
	if code, body := e.do(t, "DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"+d.Name, "", ""); code != http.StatusOK {
		t.Fatalf("delete: %d %s", code, body)
	}
	eventually(t, "definition gone", func() (bool, string) {
		code, body := e.do(t, "GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"+d.Name, "", "")
		return code == http.StatusNotFound, body
	})
}

// TestApprovalConditionSet: a definition of a protected group gets the
// KubernetesAPIApprovalPolicyConformant condition from its annotation.
func TestApprovalConditionSet(t *testing.T) {
	e := start(t)
	d := manifest(t, crontabCRD)
	d.Name, d.Spec.Group = "crontabs.stable.k8s.io", "stable.k8s.io"
	d.Annotations = map[string]string{apiextensionsv1.APIApprovedAnnotation: "unapproved, testing"}
	b, _ := json.Marshal(d)
	if code, body := e.do(t, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "application/json", string(b)); code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, body)
	}
	eventually(t, "approval condition and established", func() (bool, string) {
		got := e.definition(t, d.Name)
		c := got.Condition(apiextensionsv1.KubernetesAPIApprovalPolicyConformant)
		return c != nil && c.Status == "False" && c.Reason == "UnapprovedAnnotation" && c.Message == `not approved: "unapproved, testing"` &&
			got.IsEstablished(), mustJSON(got.Status)
	})
}
