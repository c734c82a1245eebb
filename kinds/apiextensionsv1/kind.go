// Package apiextensionsv1 serves apiextensions.k8s.io/v1
// CustomResourceDefinitions with kapi: the definitions themselves, checked
// as kube-apiserver checks them (structural schemas with its messages,
// names, versions, stored versions), and [KindFor], which turns a
// definition into the apiserver.Kind it defines: every version with its
// schema, subresources, printer columns and deprecation, converted as
// spec.conversion says (None, or a Webhook called with a
// ConversionReview over HTTPS trusting its caBundle). Package
// controllers/crd serves those kinds while the server runs.
//
// A schema's anyOf, allOf, oneOf and not are value validations with
// kube-apiserver's restrictions (no type, default, description,
// nullable, additionalProperties, extensions or metadata in them), and
// what those of the root name must be specified outside them; objects
// are checked against them with kube's messages. A schema may restrict
// metadata.name and generateName (and nothing else of metadata, not even
// a description), which writes then enforce.
//
// # Where problems are reported
//
// As kube-apiserver, a definition is refused with one cause per problem,
// at its path, in kube's order and words, as kube checks its internal
// form: what every version shares is held once in spec there, so its
// problems are reported under spec.validation.openAPIV3Schema,
// spec.subresources, spec.additionalPrinterColumns (a column's path at
// JSONPath) and spec.selectableFields, and otherwise under each
// spec.versions[i]; the conversion webhook's clientConfig and review
// versions under spec.conversion.webhookClientConfig and
// spec.conversion.conversionReviewVersions; a list of versions is
// printed as kube's internal type. The order is kube's: the name, the
// group, the scope, versions without a schema, each version (its name,
// its deprecation warning, then what it does not share), the versions
// together, the names, what the versions share, conversion.
//
// In a schema, the structural checks come first; then each default,
// checked against its node (fields it would prune, the value's problems
// below .default, the node's CEL rules); then, node by node, its
// keywords, defaults where none may be, list and map extensions and the
// shape of each rule; then, when a server's rule engine is given (see
// [DefinitionKind]), each rule that does not compile, costs too much or
// uses oldSelf where nothing correlates. A schema kube cannot make
// structural (an unsupported keyword) skips the structural checks, as
// in kube.
//
// Where kapi knowingly refuses more than kube-apiserver: a schema whose
// bounds contradict each other (minimum above maximum, minLength above
// maxLength, minItems above maxItems, minProperties above
// maxProperties), which no value could satisfy, and a default below
// additionalProperties that its own node refuses (kube does not check
// those defaults). Both are refused with one cause on the schema naming
// the node, so that a definition never carries a constraint no value
// can meet.
//
// The types mirror k8s.io/apiextensions-apiserver's v1 types field for
// field, in JSON and in protobuf (with its field numbers); a version's
// openAPIV3Schema is kept as JSON in the form kube-apiserver writes it
// back (its fields in kube's order, unknown ones dropped, JSON values
// such as default, example and enum re-encoded as kube stores them;
// unknown and duplicate fields in it are reported as kube's decoder
// reports them, see [CustomResourceDefinition.StrictShadow]), and
// travels in protobuf as a typed JSONSchemaProps.
package apiextensionsv1

import (
	"context"
	"errors"
	"strings"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/schema"
	"github.com/kapi-dev/kapi/status"
)

// Group, Version and Resource of CustomResourceDefinitions.
const (
	Group    = groupName
	Version  = "v1"
	Resource = resourceName
)

// Register serves CustomResourceDefinitions on srv: /apis/
// apiextensions.k8s.io/v1/customresourcedefinitions, cluster-scoped,
// with /status. A definition whose kind srv could not serve (one that
// collides with a registered kind, or whose schema or rules do not
// compile) is refused with 422 Invalid. It returns srv, as Register does.
func Register(srv *apiserver.Server) *apiserver.Server {
	return srv.Register(DefinitionKind(srv.CheckKind, srv.RuleEngine()))
}

// DefinitionKind is the registration of CustomResourceDefinition; check,
// when not nil, is asked about the kind each definition defines (see
// [apiserver.Server.CheckKind]). rules, when not nil, compiles the
// x-kubernetes-validations of each version's schema first, so that each
// rule that does not compile or costs too much is its own cause, at its
// place in the definition.
func DefinitionKind(check func(apiserver.Kind) error, rules schema.RuleEngine) apiserver.Kind {
	return apiserver.Kind{
		Group: Group, Version: Version, Kind: "CustomResourceDefinition", Resource: Resource,
		Singular: "customresourcedefinition", ShortNames: []string{"crd", "crds"}, Categories: []string{"api-extensions"},
		New:                    func() meta.Object { return &CustomResourceDefinition{} },
		Subresources:           apiserver.Subresources{Status: true},
		RequireResourceVersion: true,
		PrepareForCreate:       prepareForCreate,
		PrepareForUpdate:       func(obj, _ meta.Object) { addStorageVersion(obj.(*CustomResourceDefinition)) },
		Default:                func(_ context.Context, obj meta.Object) { setDefaults(obj.(*CustomResourceDefinition)) },
		Validate: func(_ context.Context, obj, old meta.Object) status.FieldErrors {
			var prev *CustomResourceDefinition
			if old != nil {
				prev = old.(*CustomResourceDefinition)
			}
			return validateAll(obj.(*CustomResourceDefinition), prev, check, rules)
		},
		ValidateStatus: func(_ context.Context, obj, _ meta.Object) status.FieldErrors {
			return validateStatus(obj.(*CustomResourceDefinition))
		},
		// The name is checked with the rest (see validate), as kube
		// checks it: a DNS subdomain that is <plural>.<group>.
		ValidateName:   func(string) []string { return nil },
		Deletion:       &apiserver.DeletionHooks{Mark: markDeleting},
		PrinterColumns: columns(),
	}
}

// validateAll checks a definition and the kind it defines, on writes but
// those to /status.
func validateAll(crd, old *CustomResourceDefinition, check func(apiserver.Kind) error, rules schema.RuleEngine) status.FieldErrors {
	errs := append(validate(crd, old, rules), validateStoredVersions(crd)...)
	if len(errs) > 0 {
		return errs
	}
	k, errs := KindFor(crd)
	if len(errs) > 0 || check == nil || !crd.Served() {
		return errs // a definition serving no version defines no kind to check
	}
	if err := check(k); err != nil {
		return status.FieldErrors{kindError(crd, err)}
	}
	return nil
}

// kindError places a refusal of the defined kind: a collision on the
// names, anything else on the storage version's schema.
func kindError(crd *CustomResourceDefinition, err error) *status.FieldError {
	msg := strings.TrimPrefix(err.Error(), "apiserver: ")
	if strings.Contains(msg, "already registered") || strings.Contains(msg, "already served") {
		return status.InvalidValue(status.NewPath("spec", "names", "plural"), crd.Spec.Names.Plural, msg)
	}
	for i, v := range crd.Spec.Versions {
		if v.Storage {
			return status.InvalidValue(schemaPlacesOf(crd).path(i), "", msg)
		}
	}
	return status.InvalidValue(status.NewPath("spec"), "", msg)
}

func setDefaults(crd *CustomResourceDefinition) {
	n := &crd.Spec.Names
	if n.Singular == "" {
		n.Singular = strings.ToLower(n.Kind)
	}
	if n.ListKind == "" && n.Kind != "" {
		n.ListKind = n.Kind + "List"
	}
	if crd.Spec.Conversion == nil {
		crd.Spec.Conversion = &CustomResourceConversion{Strategy: NoneConverter}
	}
	if w := crd.Spec.Conversion.Webhook; w != nil && w.ClientConfig != nil && w.ClientConfig.Service != nil && w.ClientConfig.Service.Port == nil {
		port := int32(443)
		w.ClientConfig.Service.Port = &port
	}
	defaultStoredVersions(crd)
}

// prepareForCreate: the server decides the status; the storage version
// is the first stored one.
func prepareForCreate(obj meta.Object) {
	crd := obj.(*CustomResourceDefinition)
	crd.Status = CustomResourceDefinitionStatus{}
	if v, ok := storageVersion(crd); ok {
		crd.Status.StoredVersions = []string{v}
	}
}

// markDeleting is kube's first delete of a definition: the cleanup
// finalizer keeps it while its objects are deleted, and Terminating
// says the deletion is pending (the controller then says it is in
// progress, then done; see TerminatingCondition).
func markDeleting(obj meta.Object) {
	crd := obj.(*CustomResourceDefinition)
	if !contains(crd.Finalizers, CleanupFinalizer) {
		crd.Finalizers = append(crd.Finalizers, CleanupFinalizer)
	}
	crd.SetCondition(TerminatingCondition(DeletionPending), meta.Now())
}

// The stages of a definition's deletion its Terminating condition
// reports, as kube-apiserver's.
const (
	DeletionPending    = "InstanceDeletionPending"
	DeletionInProgress = "InstanceDeletionInProgress"
	DeletionCompleted  = "InstanceDeletionCompleted"
)

// TerminatingCondition is the Terminating condition of a deletion at the
// stage reason, with kube-apiserver's status and message.
func TerminatingCondition(reason string) CustomResourceDefinitionCondition {
	c := CustomResourceDefinitionCondition{Type: Terminating, Status: ConditionTrue, Reason: reason}
	switch reason {
	case DeletionPending:
		c.Message = "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon"
	case DeletionInProgress:
		c.Message = "CustomResource deletion is in progress"
	case DeletionCompleted:
		c.Status, c.Message = ConditionFalse, "removed all instances"
	}
	return c
}

// IsTerminating reports whether the definition is being deleted.
func (c *CustomResourceDefinition) IsTerminating() bool {
	t := c.Condition(Terminating)
	return c.DeletionTimestamp != nil || (t != nil && t.Status == ConditionTrue)
}

// errTerminating is kube's refusal of new objects of a definition being
// deleted.
var errTerminating = errors.New("create not allowed while custom resource definition is terminating")

// RefuseCreates is the admission of a definition's kind while the
// definition is deleted: writes that would create an object (a create,
// an apply of a missing one) are refused with 403 Forbidden, as
// kube-apiserver refuses them; updates, patches and deletes of the
// objects there are go on. Run as the kind's Admit, it refuses before
// the object is validated or its name generated, as kube does (the
// message names no object for a generateName).
func RefuseCreates(gr meta.GroupResource) apiserver.AdmissionFunc {
	return func(_ context.Context, req *apiserver.AdmissionRequest) error {
		if req.Operation == apiserver.OperationCreate {
			return status.Forbidden(gr, req.Name, errTerminating)
		}
		return nil
	}
}
