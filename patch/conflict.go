package patch

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/merge"
)

// conflictError is the 409 kube-apiserver answers when an apply changes
// fields other managers own (k8s.io/apimachinery's
// managedfields/internal.NewConflictError): reason Conflict, one
// FieldManagerConflict cause per field naming the manager, and a message
// naming them all. Causes are grouped by manager, managers sorted (kube
// leaves their order to map iteration), each manager's fields in
// structured-merge-diff's set order.
func conflictError(cs merge.Conflicts) error {
	sorted := append(merge.Conflicts(nil), cs...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Manager < sorted[j].Manager })
	causes := make([]meta.StatusCause, 0, len(sorted))
	for _, c := range sorted {
		causes = append(causes, meta.StatusCause{
			Type:    meta.CauseTypeFieldManagerConflict,
			Message: "conflict with " + printManager(c.Manager),
			Field:   c.Path.String(),
		})
	}
	st := status.New(http.StatusConflict, meta.StatusReasonConflict, conflictMessage(sorted))
	st.Status.Details = &meta.StatusDetails{Causes: causes}
	return withCause(st, cs)
}

func conflictMessage(cs merge.Conflicts) string {
	if len(cs) == 1 {
		return fmt.Sprintf("Apply failed with 1 conflict: conflict with %v: %v", printManager(cs[0].Manager), cs[0].Path)
	}
	byManager := map[string][]fieldpath.Path{}
	var managers []string
	for _, c := range cs {
		if _, ok := byManager[c.Manager]; !ok {
			managers = append(managers, c.Manager)
		}
		byManager[c.Manager] = append(byManager[c.Manager], c.Path)
	}
	sort.Strings(managers)
	var lines []string
	for _, m := range managers {
		lines = append(lines, fmt.Sprintf("conflicts with %v:", printManager(m)))
		for _, p := range byManager[m] {
			lines = append(lines, fmt.Sprintf("- %v", p))
		}
	}
	return fmt.Sprintf("Apply failed with %d conflicts: %s", len(cs), strings.Join(lines, "\n"))
}

// printManager renders a manager identifier for messages: the quoted
// name, its subresource, and for updates the apiVersion.
func printManager(id string) string {
	var e meta.ManagedFieldsEntry
	if err := json.Unmarshal([]byte(id), &e); err != nil {
		return fmt.Sprintf("%q", id)
	}
	s := fmt.Sprintf("%q", e.Manager)
	if e.Subresource != "" {
		s = fmt.Sprintf("%s with subresource %q", s, e.Subresource)
	}
	if e.Operation == meta.ManagedFieldsOperationUpdate {
		if e.Time == nil {
			return fmt.Sprintf("%s using %v", s, e.APIVersion)
		}
		return fmt.Sprintf("%s using %v at %v", s, e.APIVersion, e.Time.UTC().Format(time.RFC3339))
	}
	return s
}
