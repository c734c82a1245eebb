package reviews

import (
	"fmt"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// reviewGroupKind names access reviews in their 422s as kube-apiserver
// does: the group with an empty kind (".authorization.k8s.io").
var reviewGroupKind = meta.GroupVersionKind{Group: "authorization.k8s.io"}

// The details of kube-apiserver's access review validation.
const (
	exactlyOneAttributes = "exactly one of nonResourceAttributes or resourceAttributes must be specified"
	userOrGroup          = "at least one of user or group must be specified"
)

// internalNonResourceAttributes renders a nonResourceAttributes in a
// message as kube-apiserver does, by its internal type's field names.
type internalNonResourceAttributes struct{ Path, Verb string }

// nonResourceValue is the value kube-apiserver shows for the
// nonResourceAttributes of a review: null when there are none.
func nonResourceValue(na *nonResourceAttributes) any {
	if na == nil {
		return nil
	}
	return internalNonResourceAttributes{Path: na.Path, Verb: na.Verb}
}

// validateSubjectAccessReview checks a SubjectAccessReview or, local, a
// LocalSubjectAccessReview whose namespace is already the request's.
func validateSubjectAccessReview(rv *subjectAccessReview, local bool) status.FieldErrors {
	spec := status.NewPath("spec")
	errs := validateAttributes(spec, rv.Spec.ResourceAttributes, rv.Spec.NonResourceAttributes)
	if rv.Spec.User == "" && len(rv.Spec.Groups) == 0 {
		errs = append(errs, status.InvalidValue(spec.Child("user"), rv.Spec.User, userOrGroup))
	}
	errs = append(errs, validateResourceAttributes(rv.Spec.ResourceAttributes)...)
	om := rv.ObjectMeta
	om.ManagedFields = nil
	if !local {
		if !isEmptyMeta(om) {
			errs = append(errs, status.InvalidValue(status.NewPath("metadata"), rv.ObjectMeta, "must be empty"))
		}
		return errs
	}
	om.Namespace = ""
	if !isEmptyMeta(om) {
		errs = append(errs, status.InvalidValue(status.NewPath("metadata"), rv.ObjectMeta, "must be empty except for namespace"))
	}
	if ra := rv.Spec.ResourceAttributes; ra != nil && ra.Namespace != rv.Namespace {
		errs = append(errs, status.InvalidValue(status.NewPath("spec", "resourceAttributes", "namespace"), ra.Namespace, "must match metadata.namespace"))
	}
	if na := rv.Spec.NonResourceAttributes; na != nil {
		errs = append(errs, status.InvalidValue(status.NewPath("spec", "nonResourceAttributes"), nonResourceValue(na), "disallowed on this kind of request"))
	}
	return errs
}

// validateSelfAccessReview checks a SelfSubjectAccessReview.
func validateSelfAccessReview(rv *selfSubjectAccessReview) status.FieldErrors {
	errs := validateAttributes(status.NewPath("spec"), rv.Spec.ResourceAttributes, rv.Spec.NonResourceAttributes)
	errs = append(errs, validateResourceAttributes(rv.Spec.ResourceAttributes)...)
	om := rv.ObjectMeta
	om.ManagedFields = nil
	if !isEmptyMeta(om) {
		errs = append(errs, status.InvalidValue(status.NewPath("metadata"), rv.ObjectMeta, "must be empty"))
	}
	return errs
}

// validateAttributes checks that a review asks about exactly one of a
// resource or a path.
func validateAttributes(spec status.Path, ra *resourceAttributes, na *nonResourceAttributes) status.FieldErrors {
	if (ra == nil) == (na == nil) {
		return status.FieldErrors{status.InvalidValue(spec, nonResourceValue(na), exactlyOneAttributes)}
	}
	return nil
}

// validateResourceAttributes checks the selectors a resource review
// narrows a list or watch with.
func validateResourceAttributes(ra *resourceAttributes) status.FieldErrors {
	if ra == nil {
		return nil
	}
	p := status.NewPath("spec", "resourceAttributes")
	errs := validateSelector(p.Child("fieldSelector"), ra.FieldSelector)
	return append(errs, validateSelector(p.Child("labelSelector"), ra.LabelSelector)...)
}

func validateSelector(p status.Path, sel *selectorAttributes) status.FieldErrors {
	switch {
	case sel == nil:
		return nil
	case sel.RawSelector != "" && len(sel.Requirements) > 0:
		return status.FieldErrors{status.InvalidValue(p.Child("rawSelector"), sel.RawSelector, "may not specified at the same time as requirements")}
	case sel.RawSelector == "" && len(sel.Requirements) == 0:
		return status.FieldErrors{status.Required(p.Child("requirements"), fmt.Sprintf("when %s is specified, requirements or rawSelector is required", p))}
	}
	return nil
}

// isEmptyMeta reports whether a review's metadata says nothing.
func isEmptyMeta(om meta.ObjectMeta) bool {
	return om.Name == "" && om.GenerateName == "" && om.Namespace == "" && om.UID == "" &&
		om.ResourceVersion == "" && om.Generation == 0 && om.CreationTimestamp.IsZero() &&
		om.DeletionTimestamp == nil && om.DeletionGracePeriodSeconds == nil && len(om.Labels) == 0 &&
		len(om.Annotations) == 0 && len(om.OwnerReferences) == 0 && len(om.Finalizers) == 0 &&
		len(om.ManagedFields) == 0 && om.SelfLink == ""
}
