package rbac

import (
	"context"
	"reflect"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// ClusterRoleKind is the registration of ClusterRole.
func ClusterRoleKind() apiserver.Kind {
	return apiserver.Kind{
		Group: Group, Version: "v1", Kind: "ClusterRole", Resource: "clusterroles", Singular: "clusterrole",
		New:          func() meta.Object { return &ClusterRole{} },
		ValidateName: apiserver.PathSegmentNameErrors,
		NoGeneration: true,
		Validate: func(_ context.Context, obj, _ meta.Object) status.FieldErrors {
			cr := obj.(*ClusterRole)
			errs := validateRules(cr.Rules, true)
			if ar := cr.AggregationRule; ar != nil {
				for i, sel := range ar.ClusterRoleSelectors {
					errs = append(errs, validateSelector(sel, status.NewPath("aggregationRule", "clusterRoleSelectors").Index(i))...)
				}
			}
			return errs
		},
	}
}

// RoleKind is the registration of Role.
func RoleKind() apiserver.Kind {
	return apiserver.Kind{
		Group: Group, Version: "v1", Kind: "Role", Resource: "roles", Singular: "role", Namespaced: true,
		New:          func() meta.Object { return &Role{} },
		ValidateName: apiserver.PathSegmentNameErrors,
		NoGeneration: true,
		Validate: func(_ context.Context, obj, _ meta.Object) status.FieldErrors {
			return validateRules(obj.(*Role).Rules, false)
		},
	}
}

// ClusterRoleBindingKind is the registration of ClusterRoleBinding.
func ClusterRoleBindingKind() apiserver.Kind {
	return apiserver.Kind{
		Group: Group, Version: "v1", Kind: "ClusterRoleBinding", Resource: "clusterrolebindings", Singular: "clusterrolebinding",
		New:          func() meta.Object { return &ClusterRoleBinding{} },
		ValidateName: apiserver.PathSegmentNameErrors,
		NoGeneration: true,
		Validate: func(_ context.Context, obj, old meta.Object) status.FieldErrors {
			b := obj.(*ClusterRoleBinding)
			var oldRef *RoleRef
			if old != nil {
				oldRef = &old.(*ClusterRoleBinding).RoleRef
			}
			return validateBinding(b.RoleRef, oldRef, b.Subjects, true)
		},
		PrinterColumns: bindingColumns("clusterRoleBinding", clusterRoleRefDoc, func(obj meta.Object) (RoleRef, []Subject) {
			b := obj.(*ClusterRoleBinding)
			return b.RoleRef, b.Subjects
		}),
	}
}

// RoleBindingKind is the registration of RoleBinding.
func RoleBindingKind() apiserver.Kind {
	return apiserver.Kind{
		Group: Group, Version: "v1", Kind: "RoleBinding", Resource: "rolebindings", Singular: "rolebinding", Namespaced: true,
		New:          func() meta.Object { return &RoleBinding{} },
		ValidateName: apiserver.PathSegmentNameErrors,
		NoGeneration: true,
		Validate: func(_ context.Context, obj, old meta.Object) status.FieldErrors {
			b := obj.(*RoleBinding)
			var oldRef *RoleRef
			if old != nil {
				oldRef = &old.(*RoleBinding).RoleRef
			}
			return validateBinding(b.RoleRef, oldRef, b.Subjects, false)
		},
		PrinterColumns: bindingColumns("roleBinding", roleRefDoc, func(obj meta.Object) (RoleRef, []Subject) {
			b := obj.(*RoleBinding)
			return b.RoleRef, b.Subjects
		}),
	}
}

// validateRules checks rules as kube does: each needs verbs, and either
// resources (with API groups) or non-resource URLs, not both; namespaced
// roles have no non-resource URLs.
func validateRules(rules []PolicyRule, cluster bool) status.FieldErrors {
	var errs status.FieldErrors
	for i, r := range rules {
		p := status.NewPath("rules").Index(i)
		if len(r.Verbs) == 0 {
			errs = append(errs, status.Required(p.Child("verbs"), "verbs must contain at least one value"))
		}
		if len(r.NonResourceURLs) > 0 {
			if !cluster {
				errs = append(errs, status.InvalidValue(p.Child("nonResourceURLs"), r.NonResourceURLs, "namespaced rules cannot apply to non-resource URLs"))
			}
			if len(r.APIGroups) > 0 || len(r.Resources) > 0 || len(r.ResourceNames) > 0 {
				errs = append(errs, status.InvalidValue(p.Child("nonResourceURLs"), r.NonResourceURLs, "rules cannot apply to both regular resources and non-resource URLs"))
			}
			continue
		}
		if len(r.APIGroups) == 0 {
			errs = append(errs, status.Required(p.Child("apiGroups"), "resource rules must supply at least one api group"))
		}
		if len(r.Resources) == 0 {
			errs = append(errs, status.Required(p.Child("resources"), "resource rules must supply at least one resource"))
		}
	}
	return errs
}

func validateSelector(sel LabelSelector, p status.Path) status.FieldErrors {
	var errs status.FieldErrors
	for i, e := range sel.MatchExpressions {
		ep := p.Child("matchExpressions").Index(i)
		switch e.Operator {
		case "In", "NotIn":
			if len(e.Values) == 0 {
				errs = append(errs, status.Required(ep.Child("values"), "must be specified when `operator` is 'In' or 'NotIn'"))
			}
		case "Exists", "DoesNotExist":
			if len(e.Values) > 0 {
				errs = append(errs, status.ForbiddenField(ep.Child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
			}
		default:
			errs = append(errs, status.NotSupported(ep.Child("operator"), e.Operator, []string{"In", "NotIn", "Exists", "DoesNotExist"}))
		}
	}
	return errs
}

// validateBinding checks a binding's role reference (immutable once set)
// and subjects.
func validateBinding(ref RoleRef, old *RoleRef, subjects []Subject, cluster bool) status.FieldErrors {
	var errs status.FieldErrors
	p := status.NewPath("roleRef")
	if ref.APIGroup != Group {
		errs = append(errs, status.NotSupported(p.Child("apiGroup"), ref.APIGroup, []string{Group}))
	}
	kinds := []string{"ClusterRole", "Role"}
	if cluster {
		kinds = kinds[:1]
	}
	if !contains(kinds, ref.Kind) {
		errs = append(errs, status.NotSupported(p.Child("kind"), ref.Kind, kinds))
	}
	if ref.Name == "" {
		errs = append(errs, status.Required(p.Child("name"), ""))
	}
	if old != nil && !reflect.DeepEqual(*old, ref) {
		errs = append(errs, status.InvalidValue(p, ref, "cannot change roleRef"))
	}
	for i, s := range subjects {
		sp := status.NewPath("subjects").Index(i)
		if s.Name == "" {
			errs = append(errs, status.Required(sp.Child("name"), ""))
		}
		switch s.Kind {
		case "User", "Group":
			if s.APIGroup != Group {
				errs = append(errs, status.NotSupported(sp.Child("apiGroup"), s.APIGroup, []string{Group}))
			}
		case "ServiceAccount":
			if s.APIGroup != "" {
				errs = append(errs, status.NotSupported(sp.Child("apiGroup"), s.APIGroup, []string{""}))
			}
			if cluster && s.Namespace == "" {
				errs = append(errs, status.Required(sp.Child("namespace"), ""))
			}
		default:
			errs = append(errs, status.NotSupported(sp.Child("kind"), s.Kind, []string{"ServiceAccount", "User", "Group"}))
		}
	}
	return errs
}
