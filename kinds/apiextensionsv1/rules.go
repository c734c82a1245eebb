package apiextensionsv1

import (
	"errors"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/schema"
	"github.com/kapi-dev/kapi/status"
)

// ruleErrors compiles the rules of each version's schema with engine,
// as kube-apiserver compiles a definition's rules when it is written:
// each rule that does not compile, costs too much or uses oldSelf where
// nothing correlates is a cause at its path under the version's
// openAPIV3Schema. Without an engine the server's check refuses rules.
func ruleErrors(crd *CustomResourceDefinition, k apiserver.Kind, engine schema.RuleEngine) status.FieldErrors {
	if engine == nil {
		return nil
	}
	var errs status.FieldErrors
	for i := range crd.Spec.Versions {
		sch := versionSchema(crd, k, i)
		if !schema.HasRules(sch) {
			continue
		}
		root := status.NewPath("spec", "versions").Index(i).Child("schema").Child("openAPIV3Schema")
		_, err := engine.Compile(sch, root)
		var fes status.FieldErrors
		switch {
		case err == nil:
		case errors.As(err, &fes):
			errs = append(errs, fes...)
		default:
			errs = append(errs, status.InvalidValue(root, "", err.Error()))
		}
	}
	return errs
}

// versionSchema is the schema of the definition's version i in k, the
// kind KindFor made of it.
func versionSchema(crd *CustomResourceDefinition, k apiserver.Kind, i int) *schema.Schema {
	if len(k.Versions) > 0 {
		return k.Versions[i].Schema
	}
	if crd.Spec.Versions[i].Storage {
		return k.Schema
	}
	return nil
}
