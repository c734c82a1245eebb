package apiextensionsv1

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/kapi-dev/kapi/status"
)

// APIApprovedAnnotation is the annotation a definition of a protected
// group (k8s.io, kubernetes.io and their subdomains) must carry: the URL
// of the approval of its API, or a reason starting with "unapproved".
const APIApprovedAnnotation = "api-approved.kubernetes.io"

type approvalState int

const (
	approvalInvalid approvalState = iota
	approved
	approvalBypassed
	approvalMissing
)

// protectedGroup reports whether a group is the community's, whose
// APIs need approval.
func protectedGroup(group string) bool {
	return group == "k8s.io" || strings.HasSuffix(group, ".k8s.io") ||
		group == "kubernetes.io" || strings.HasSuffix(group, ".kubernetes.io")
}

// approvalOf reads the approval annotation, with kube's words for a
// missing or invalid one.
func approvalOf(annotations map[string]string) (approvalState, string) {
	a := annotations[APIApprovedAnnotation]
	u, err := url.ParseRequestURI(a)
	switch {
	case a == "":
		return approvalMissing, `protected groups must have approval annotation "` + APIApprovedAnnotation + `", see https://github.com/kubernetes/enhancements/pull/1111`
	case strings.HasPrefix(a, "unapproved"):
		return approvalBypassed, ""
	case err == nil && u.Host != "" && u.Scheme != "":
		return approved, ""
	}
	return approvalInvalid, `protected groups must have approval annotation "` + APIApprovedAnnotation +
		`" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111`
}

// approvalErrors: a definition of a protected group needs the approval
// annotation, unless an update leaves its state as it was.
func approvalErrors(crd, old *CustomResourceDefinition) status.FieldErrors {
	if !protectedGroup(crd.Spec.Group) {
		return nil
	}
	state, why := approvalOf(crd.Annotations)
	if old != nil {
		if was, _ := approvalOf(old.Annotations); was == state {
			return nil
		}
	}
	p := status.NewPath("metadata", "annotations").Key(APIApprovedAnnotation)
	switch state {
	case approvalMissing:
		return status.FieldErrors{status.Required(p, why)}
	case approvalInvalid:
		return status.FieldErrors{status.InvalidValue(p, crd.Annotations[APIApprovedAnnotation], why)}
	}
	return nil
}

// KubernetesAPIApprovalPolicyConformant is the condition type that says
// whether a definition of a protected group carries its approval.
const KubernetesAPIApprovalPolicyConformant = "KubernetesAPIApprovalPolicyConformant"

// ApprovalCondition is the KubernetesAPIApprovalPolicyConformant
// condition kube-apiserver gives a definition of a protected group, from
// its approval annotation; nil for other groups.
func ApprovalCondition(crd *CustomResourceDefinition) *CustomResourceDefinitionCondition {
	if !protectedGroup(crd.Spec.Group) {
		return nil
	}
	state, why := approvalOf(crd.Annotations)
	c := &CustomResourceDefinitionCondition{Type: KubernetesAPIApprovalPolicyConformant, Status: ConditionFalse, Message: why}
	a := crd.Annotations[APIApprovedAnnotation]
	switch state {
	case approved:
		c.Status, c.Reason, c.Message = ConditionTrue, "ApprovedAnnotation", "approved in "+a
	case approvalBypassed:
		c.Reason, c.Message = "UnapprovedAnnotation", "not approved: "+strconv.Quote(a)
	case approvalMissing:
		c.Reason = "MissingAnnotation"
	default:
		c.Reason = "InvalidAnnotation"
	}
	return c
}
