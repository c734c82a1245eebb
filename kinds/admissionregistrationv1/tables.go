package admissionregistrationv1

import (
	"sort"
	"strings"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/meta"
)

// The descriptions of the columns of kube-apiserver's Tables of these
// kinds, word for word as it sends them.
const (
	webhooksDoc    = "Webhooks indicates the number of webhooks registered in this configuration"
	validationsDoc = "Validations indicates the number of validation rules defined in this configuration"
	mutationsDoc   = "Mutation indicates the number of mutations rules defined in this configuration"
	paramKindDoc   = "ParamKind specifies the kind of resources used to parameterize this policy"
	policyNameDoc  = "PolicyName indicates the policy definition which the policy binding binded to"
	paramRefDoc    = "ParamRef indicates the param resource which sets the configuration param"
)

// unset is the cell of a policy without paramKind or a binding without
// paramRef.
const unset = "<unset>"

// paramKindCell prints a policy's paramKind as apiVersion/kind.
func paramKindCell(pk *ParamKind) string {
	if pk == nil {
		return unset
	}
	return pk.APIVersion + "/" + pk.Kind
}

// bindingColumns are the PolicyName and ParamRef columns of a binding,
// read by spec.
func bindingColumns(spec func(meta.Object) (string, *ParamRef)) []apiserver.PrinterColumn {
	return []apiserver.PrinterColumn{
		{Name: "PolicyName", Type: "string", Description: policyNameDoc, Cell: func(obj meta.Object) any {
			name, _ := spec(obj)
			return name
		}},
		{Name: "ParamRef", Type: "string", Description: paramRefDoc, Cell: func(obj meta.Object) any {
			_, ref := spec(obj)
			return paramRefCell(ref)
		}},
		apiserver.AgeColumn(),
	}
}

// paramRefCell prints a binding's paramRef: namespace/name, "*/name"
// when no namespace is named (the printer cannot tell whether the param
// kind is cluster-scoped), or the selector.
func paramRefCell(ref *ParamRef) string {
	switch {
	case ref == nil:
		return unset
	case ref.Name != "" && ref.Namespace != "":
		return ref.Namespace + "/" + ref.Name
	case ref.Name != "":
		return "*/" + ref.Name
	case ref.Selector != nil:
		return ref.Selector.goString()
	}
	return unset
}

// goString renders a selector as kube's printer does, which prints the
// string form gogo-protobuf generates for meta/v1 LabelSelector (map keys
// sorted).
func (s *LabelSelector) goString() string {
	var b strings.Builder
	b.WriteString("&LabelSelector{MatchLabels:map[string]string{")
	keys := make([]string, 0, len(s.MatchLabels))
	for k := range s.MatchLabels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		b.WriteString(k + ": " + s.MatchLabels[k] + ",")
	}
	b.WriteString("},MatchExpressions:[]LabelSelectorRequirement{")
	for _, e := range s.MatchExpressions {
		b.WriteString("LabelSelectorRequirement{Key:" + e.Key + ",Operator:" + e.Operator + ",Values:[" + strings.Join(e.Values, " ") + "],},")
	}
	b.WriteString("},}")
	return b.String()
}
