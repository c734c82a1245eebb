package apiextensionsv1

import (
	"sort"
	"strings"
	"time"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/meta"
)

// columns are the columns of kube's Table of CustomResourceDefinitions:
// Scope, the served Versions and Created At (a timestamp, not an age),
// and for -o wide the Group, Kind, ShortNames and whether it is
// Established.
func columns() []apiserver.PrinterColumn {
	crd := func(get func(c *CustomResourceDefinition) any) func(meta.Object) any {
		return func(obj meta.Object) any { return get(obj.(*CustomResourceDefinition)) }
	}
	return []apiserver.PrinterColumn{
		{Name: "Scope", Type: "string", Description: "Cluster/Namespaced", Cell: crd(func(c *CustomResourceDefinition) any { return c.Spec.Scope })},
		{Name: "Versions", Type: "string", Description: "Served versions", Cell: crd(servedVersions)},
		{Name: "Created At", Type: "date", Description: apiserver.AgeColumn().Description, Cell: crd(func(c *CustomResourceDefinition) any {
			return c.CreationTimestamp.UTC().Format(time.RFC3339)
		})},
		{Name: "Group", Type: "string", Priority: 1, Description: "API group", Cell: crd(func(c *CustomResourceDefinition) any { return c.Spec.Group })},
		{Name: "Kind", Type: "string", Priority: 1, Description: "CustomResource kind", Cell: crd(func(c *CustomResourceDefinition) any { return c.Spec.Names.Kind })},
		{Name: "ShortNames", Type: "string", Priority: 1, Description: "Short names", Cell: crd(func(c *CustomResourceDefinition) any {
			return strings.Join(c.Spec.Names.ShortNames, ",")
		})},
		{Name: "Established", Type: "boolean", Priority: 1, Description: "Established status", Cell: crd(func(c *CustomResourceDefinition) any { return c.IsEstablished() })},
	}
}

// servedVersions is the Versions cell: the served versions in order of
// name, the storage version marked "(storage)", separated by commas.
func servedVersions(c *CustomResourceDefinition) any {
	var vs []string
	for _, v := range c.Spec.Versions {
		switch {
		case !v.Served:
		case v.Storage:
			vs = append(vs, v.Name+"(storage)")
		default:
			vs = append(vs, v.Name)
		}
	}
	sort.Strings(vs)
	return strings.Join(vs, ",")
}
