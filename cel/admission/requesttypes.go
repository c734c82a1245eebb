package admission

import (
	"sort"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// The types kube-apiserver declares request and namespaceObject with,
// so that an expression reading a field they do not have, or comparing
// one with a value of another type, does not compile.
const (
	requestTypeName   = "kubernetes.AdmissionRequest"
	namespaceTypeName = "kubernetes.Namespace"
)

// objectTypes are object types by name: each a map of field types.
type objectTypes map[string]map[string]*types.Type

func strList() *types.Type { return types.NewListType(types.StringType) }

func strMap(v *types.Type) *types.Type { return types.NewMapType(types.StringType, v) }

// requestTypes are the types of request and namespaceObject.
var requestTypes = objectTypes{
	"kubernetes.GroupVersionKind":     {"group": types.StringType, "version": types.StringType, "kind": types.StringType},
	"kubernetes.GroupVersionResource": {"group": types.StringType, "version": types.StringType, "resource": types.StringType},
	"kubernetes.UserInfo": {"username": types.StringType, "uid": types.StringType, "groups": strList(),
		"extra": strMap(strList())},
	requestTypeName: {
		"kind": types.NewObjectType("kubernetes.GroupVersionKind"), "resource": types.NewObjectType("kubernetes.GroupVersionResource"),
		"subResource": types.StringType, "requestKind": types.NewObjectType("kubernetes.GroupVersionKind"),
		"requestResource": types.NewObjectType("kubernetes.GroupVersionResource"), "requestSubResource": types.StringType,
		"name": types.StringType, "namespace": types.StringType, "operation": types.StringType,
		"userInfo": types.NewObjectType("kubernetes.UserInfo"), "dryRun": types.BoolType, "options": types.DynType,
	},
	"kubernetes.NamespaceSpec": {"finalizers": strList()},
	"kubernetes.NamespaceCondition": {"status": types.StringType, "type": types.StringType,
		"lastTransitionTime": types.TimestampType, "message": types.StringType, "reason": types.StringType},
	"kubernetes.NamespaceStatus": {"conditions": types.NewListType(types.NewObjectType("kubernetes.NamespaceCondition")),
		"phase": types.StringType},
	"kubernetes.NamespaceMetadata": {"name": types.StringType, "generateName": types.StringType, "namespace": types.StringType,
		"labels": strMap(types.StringType), "annotations": strMap(types.StringType), "UID": types.StringType,
		"creationTimestamp": types.TimestampType, "deletionGracePeriodSeconds": types.IntType,
		"deletionTimestamp": types.TimestampType, "generation": types.IntType, "resourceVersion": types.StringType,
		"finalizers": strList()},
	namespaceTypeName: {"metadata": types.NewObjectType("kubernetes.NamespaceMetadata"),
		"spec": types.NewObjectType("kubernetes.NamespaceSpec"), "status": types.NewObjectType("kubernetes.NamespaceStatus")},
}

// typesProvider declares object types on top of another provider. Their
// values come from the request (JSON); expressions cannot build them.
type typesProvider struct {
	types.Provider
	objects objectTypes
}

func (p *typesProvider) FindStructType(name string) (*types.Type, bool) {
	if _, ok := p.objects[name]; ok {
		return types.NewTypeTypeWithParam(types.NewObjectType(name)), true
	}
	return p.Provider.FindStructType(name)
}

func (p *typesProvider) FindStructFieldNames(name string) ([]string, bool) {
	fields, ok := p.objects[name]
	if !ok {
		return p.Provider.FindStructFieldNames(name)
	}
	names := make([]string, 0, len(fields))
	for f := range fields {
		names = append(names, f)
	}
	sort.Strings(names)
	return names, true
}

func (p *typesProvider) FindStructFieldType(name, field string) (*types.FieldType, bool) {
	fields, ok := p.objects[name]
	if !ok {
		return p.Provider.FindStructFieldType(name, field)
	}
	t, ok := fields[field]
	if !ok {
		return nil, false
	}
	return &types.FieldType{Type: t}, true
}

func (p *typesProvider) NewValue(name string, fields map[string]ref.Val) ref.Val {
	if _, ok := p.objects[name]; ok {
		return types.NewErr("objects of type %s cannot be created", name)
	}
	return p.Provider.NewValue(name, fields)
}
