package kinds

import (
	"fmt"
	"strings"
)

// PathSegmentNameErrors checks a name as kube-apiserver checks the names
// of kinds that need only be a path segment (RBAC roles and bindings):
// not "." or "..", without "/" or "%". Use it as Kind.ValidateName.
func PathSegmentNameErrors(name string) []string {
	switch {
	case name == "." || name == "..":
		return []string{fmt.Sprintf("may not be '%s'", name)}
	case strings.Contains(name, "/"):
		return []string{"may not contain '/'"}
	case strings.Contains(name, "%"):
		return []string{"may not contain '%'"}
	}
	return nil
}
