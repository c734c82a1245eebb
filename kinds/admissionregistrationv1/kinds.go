package admissionregistrationv1

import (
	"context"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// Group and Version are those of every kind of this package.
const (
	Group   = "admissionregistration.k8s.io"
	Version = "v1"
)

// category is the kubectl category kube-apiserver puts these kinds in.
const category = "api-extensions"

// Options tune the validation of the kinds of this package.
type Options struct {
	// CheckExpression, when set, checks each CEL expression the kinds
	// hold (match conditions, validations, message expressions, audit
	// annotations, variables, mutations) as kube-apiserver compiles them
	// on every write, and returns what is wrong with one or nil. Unset,
	// expressions are only required to be non-blank: compiling CEL is the
	// cel module's, which the core module does not import.
	CheckExpression func(Expression) *status.FieldError
}

// ExpressionKind says where an expression sits, which decides the
// variables it may use and the type it must have.
type ExpressionKind string

// The places of the CEL expressions of admission configurations.
const (
	MatchConditionExpression     ExpressionKind = "MatchCondition"
	ValidationExpression         ExpressionKind = "Validation"
	MessageExpression            ExpressionKind = "MessageExpression"
	AuditAnnotationExpression    ExpressionKind = "AuditAnnotation"
	VariableExpression           ExpressionKind = "Variable"
	ApplyConfigurationExpression ExpressionKind = "ApplyConfiguration"
	JSONPatchExpression          ExpressionKind = "JSONPatch"
)

// Expression is one CEL expression to check, with what kube-apiserver
// compiles it against.
type Expression struct {
	// Path is the field of the expression, for the error.
	Path status.Path
	// Kind is where the expression sits.
	Kind ExpressionKind
	// Expression is the CEL source, trimmed as kube-apiserver compiles it.
	Expression string
	// VariableName is the name of a Variable expression.
	VariableName string
	// HasParams is true when the expression may read params.
	HasParams bool
	// HasAuthorizer is true when the expression may use authorizer.
	HasAuthorizer bool
	// Stored is true when the expression was already stored in the
	// object being updated: kube-apiserver compiles it with the
	// environment of stored expressions, which allows what newer
	// versions removed.
	Stored bool
}

// Kinds returns the registrations of the six kinds of
// admissionregistration.k8s.io/v1 with kube-apiserver's defaulting,
// validation and Tables.
func Kinds(opts Options) []apiserver.Kind {
	return []apiserver.Kind{
		MutatingWebhookConfigurationKind(opts), ValidatingWebhookConfigurationKind(opts),
		ValidatingAdmissionPolicyKind(opts), ValidatingAdmissionPolicyBindingKind(),
		MutatingAdmissionPolicyKind(opts), MutatingAdmissionPolicyBindingKind(),
	}
}

// base is what the six kinds share: group, version, cluster scope, the
// api-extensions category; generation is kept by the server as kube's
// strategies keep it (1 on create, bumped when anything but metadata and
// status changes).
func base(kind, resource, singular string, newObj func() meta.Object) apiserver.Kind {
	return apiserver.Kind{
		Group: Group, Version: Version, Kind: kind, Resource: resource, Singular: singular,
		Categories:      []string{category},
		CreateFromEmpty: true,
		New:             newObj,
		Schema:          schemaOf(newObj()),
	}
}

// MutatingWebhookConfigurationKind is the registration of
// MutatingWebhookConfiguration: mutatingwebhookconfigurations.
func MutatingWebhookConfigurationKind(opts Options) apiserver.Kind {
	k := base("MutatingWebhookConfiguration", "mutatingwebhookconfigurations", "mutatingwebhookconfiguration",
		func() meta.Object { return &MutatingWebhookConfiguration{} })
	k.Default = func(_ context.Context, obj meta.Object) { defaultMutatingWebhooks(obj.(*MutatingWebhookConfiguration)) }
	k.Validate = func(ctx context.Context, obj, old meta.Object) status.FieldErrors {
		c := obj.(*MutatingWebhookConfiguration)
		if old == nil {
			warnExcludedRules(ctx, mutatingRules(c.Webhooks))
			return append(validateMutatingWebhooks(c.Webhooks, createOptions(opts)), staticSuffixErrors(c.Name)...)
		}
		warnStaticSuffix(ctx, c.Name)
		warnExcludedRules(ctx, mutatingRules(c.Webhooks))
		return validateMutatingWebhooks(c.Webhooks, mutatingUpdateOptions(opts, old.(*MutatingWebhookConfiguration).Webhooks, c.Webhooks))
	}
	k.PrinterColumns = []apiserver.PrinterColumn{
		{Name: "Webhooks", Type: "integer", Description: webhooksDoc, Cell: func(obj meta.Object) any {
			return int64(len(obj.(*MutatingWebhookConfiguration).Webhooks))
		}},
		apiserver.AgeColumn(),
	}
	return k
}

// ValidatingWebhookConfigurationKind is the registration of
// ValidatingWebhookConfiguration: validatingwebhookconfigurations.
func ValidatingWebhookConfigurationKind(opts Options) apiserver.Kind {
	k := base("ValidatingWebhookConfiguration", "validatingwebhookconfigurations", "validatingwebhookconfiguration",
		func() meta.Object { return &ValidatingWebhookConfiguration{} })
	k.Default = func(_ context.Context, obj meta.Object) {
		defaultValidatingWebhooks(obj.(*ValidatingWebhookConfiguration))
	}
	k.Validate = func(ctx context.Context, obj, old meta.Object) status.FieldErrors {
		c := obj.(*ValidatingWebhookConfiguration)
		if old == nil {
			warnExcludedRules(ctx, validatingRules(c.Webhooks))
			return append(validateValidatingWebhooks(c.Webhooks, createOptions(opts)), staticSuffixErrors(c.Name)...)
		}
		warnStaticSuffix(ctx, c.Name)
		warnExcludedRules(ctx, validatingRules(c.Webhooks))
		return validateValidatingWebhooks(c.Webhooks, validatingUpdateOptions(opts, old.(*ValidatingWebhookConfiguration).Webhooks, c.Webhooks))
	}
	k.PrinterColumns = []apiserver.PrinterColumn{
		{Name: "Webhooks", Type: "integer", Description: webhooksDoc, Cell: func(obj meta.Object) any {
			return int64(len(obj.(*ValidatingWebhookConfiguration).Webhooks))
		}},
		apiserver.AgeColumn(),
	}
	return k
}

// ValidatingAdmissionPolicyKind is the registration of
// ValidatingAdmissionPolicy: validatingadmissionpolicies, with a status
// subresource that the server's type checking writes.
func ValidatingAdmissionPolicyKind(opts Options) apiserver.Kind {
	k := base("ValidatingAdmissionPolicy", "validatingadmissionpolicies", "validatingadmissionpolicy",
		func() meta.Object { return &ValidatingAdmissionPolicy{} })
	k.Subresources = apiserver.Subresources{Status: true}
	k.Default = func(_ context.Context, obj meta.Object) {
		defaultValidatingPolicySpec(&obj.(*ValidatingAdmissionPolicy).Spec)
	}
	k.Validate = func(ctx context.Context, obj, old meta.Object) status.FieldErrors {
		p := obj.(*ValidatingAdmissionPolicy)
		if old == nil {
			return append(validateValidatingPolicy(p, nil, opts), staticSuffixErrors(p.Name)...)
		}
		warnStaticSuffix(ctx, p.Name)
		return validateValidatingPolicy(p, old.(*ValidatingAdmissionPolicy), opts)
	}
	k.ValidateStatus = func(_ context.Context, obj, _ meta.Object) status.FieldErrors {
		return validatePolicyStatus(&obj.(*ValidatingAdmissionPolicy).Status)
	}
	k.PrinterColumns = []apiserver.PrinterColumn{
		{Name: "Validations", Type: "integer", Description: validationsDoc, Cell: func(obj meta.Object) any {
			return int64(len(obj.(*ValidatingAdmissionPolicy).Spec.Validations))
		}},
		{Name: "ParamKind", Type: "string", Description: paramKindDoc, Cell: func(obj meta.Object) any {
			return paramKindCell(obj.(*ValidatingAdmissionPolicy).Spec.ParamKind)
		}},
		apiserver.AgeColumn(),
	}
	return k
}

// ValidatingAdmissionPolicyBindingKind is the registration of
// ValidatingAdmissionPolicyBinding: validatingadmissionpolicybindings.
func ValidatingAdmissionPolicyBindingKind() apiserver.Kind {
	k := base("ValidatingAdmissionPolicyBinding", "validatingadmissionpolicybindings", "validatingadmissionpolicybinding",
		func() meta.Object { return &ValidatingAdmissionPolicyBinding{} })
	k.Default = func(_ context.Context, obj meta.Object) {
		defaultMatchResources(obj.(*ValidatingAdmissionPolicyBinding).Spec.MatchResources)
	}
	k.Validate = func(ctx context.Context, obj, old meta.Object) status.FieldErrors {
		b := obj.(*ValidatingAdmissionPolicyBinding)
		if old == nil {
			return append(validateValidatingBinding(&b.Spec), staticSuffixErrors(b.Name)...)
		}
		warnStaticSuffix(ctx, b.Name)
		return validateValidatingBinding(&b.Spec)
	}
	k.PrinterColumns = bindingColumns(func(obj meta.Object) (string, *ParamRef) {
		s := obj.(*ValidatingAdmissionPolicyBinding).Spec
		return s.PolicyName, s.ParamRef
	})
	return k
}

// MutatingAdmissionPolicyKind is the registration of
// MutatingAdmissionPolicy: mutatingadmissionpolicies.
func MutatingAdmissionPolicyKind(opts Options) apiserver.Kind {
	k := base("MutatingAdmissionPolicy", "mutatingadmissionpolicies", "mutatingadmissionpolicy",
		func() meta.Object { return &MutatingAdmissionPolicy{} })
	k.Default = func(_ context.Context, obj meta.Object) {
		defaultMutatingPolicySpec(&obj.(*MutatingAdmissionPolicy).Spec)
	}
	k.Validate = func(ctx context.Context, obj, old meta.Object) status.FieldErrors {
		p := obj.(*MutatingAdmissionPolicy)
		if old == nil {
			return append(validateMutatingPolicy(p, nil, opts), staticSuffixErrors(p.Name)...)
		}
		warnStaticSuffix(ctx, p.Name)
		return validateMutatingPolicy(p, old.(*MutatingAdmissionPolicy), opts)
	}
	k.PrinterColumns = []apiserver.PrinterColumn{
		{Name: "Mutations", Type: "integer", Description: mutationsDoc, Cell: func(obj meta.Object) any {
			return int64(len(obj.(*MutatingAdmissionPolicy).Spec.Mutations))
		}},
		{Name: "ParamKind", Type: "string", Description: paramKindDoc, Cell: func(obj meta.Object) any {
			return paramKindCell(obj.(*MutatingAdmissionPolicy).Spec.ParamKind)
		}},
		apiserver.AgeColumn(),
	}
	return k
}

// MutatingAdmissionPolicyBindingKind is the registration of
// MutatingAdmissionPolicyBinding: mutatingadmissionpolicybindings.
func MutatingAdmissionPolicyBindingKind() apiserver.Kind {
	k := base("MutatingAdmissionPolicyBinding", "mutatingadmissionpolicybindings", "mutatingadmissionpolicybinding",
		func() meta.Object { return &MutatingAdmissionPolicyBinding{} })
	k.Default = func(_ context.Context, obj meta.Object) {
		defaultMatchResources(obj.(*MutatingAdmissionPolicyBinding).Spec.MatchResources)
	}
	k.Validate = func(ctx context.Context, obj, old meta.Object) status.FieldErrors {
		b := obj.(*MutatingAdmissionPolicyBinding)
		if old == nil {
			return append(validateMutatingBinding(&b.Spec), staticSuffixErrors(b.Name)...)
		}
		warnStaticSuffix(ctx, b.Name)
		return validateMutatingBinding(&b.Spec)
	}
	k.PrinterColumns = bindingColumns(func(obj meta.Object) (string, *ParamRef) {
		s := obj.(*MutatingAdmissionPolicyBinding).Spec
		return s.PolicyName, s.ParamRef
	})
	return k
}
