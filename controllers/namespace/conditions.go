package namespace

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/kapi-dev/kapi/controllers/internal/apiclient"
	"github.com/kapi-dev/kapi/kinds/corev1"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// conditionReport gathers what went wrong in one pass over a terminating
// namespace, for the conditions that pass leaves on it.
type conditionReport struct {
	discovery     error
	contentErrors []string
}

func (r *conditionReport) discoveryFailed(err error) { r.discovery = err }

func (r *conditionReport) contentFailed(err error) {
	r.contentErrors = append(r.contentErrors, err.Error())
}

// failed reports whether the pass met an error: the namespace is then
// not finalized, even if nothing seems to remain.
func (r *conditionReport) failed() bool { return r.discovery != nil || len(r.contentErrors) > 0 }

// conditions returns the five conditions kube's namespace controller
// keeps on a terminating namespace, in its order, for this pass and what
// it left: each True with the failure, or False with its all-clear
// reason and message.
func (r *conditionReport) conditions(left remaining) []corev1.NamespaceCondition {
	return []corev1.NamespaceCondition{
		r.discoveryCondition(),
		condition(corev1.NamespaceDeletionGVParsingFailure, "False", "ParsedGroupVersions", "All legacy kube types successfully parsed"),
		r.contentCondition(),
		left.contentCondition(),
		left.finalizersCondition(),
	}
}

func (r *conditionReport) discoveryCondition() corev1.NamespaceCondition {
	if r.discovery == nil {
		return condition(corev1.NamespaceDeletionDiscoveryFailure, "False", "ResourcesDiscovered", "All resources successfully discovered")
	}
	msg := r.discovery.Error()
	var de *apiclient.DiscoveryError
	if errors.As(r.discovery, &de) {
		msg = fmt.Sprintf("Discovery failed for some groups, %d failing: %s", len(de.Groups), msg)
	}
	return condition(corev1.NamespaceDeletionDiscoveryFailure, "True", "DiscoveryFailed", msg)
}

func (r *conditionReport) contentCondition() corev1.NamespaceCondition {
	if len(r.contentErrors) == 0 {
		return condition(corev1.NamespaceDeletionContentFailure, "False", "ContentDeleted", "All content successfully deleted, may be waiting on finalization")
	}
	msgs := append([]string(nil), r.contentErrors...)
	sort.Strings(msgs)
	return condition(corev1.NamespaceDeletionContentFailure, "True", "ContentDeletionFailed",
		fmt.Sprintf("Failed to delete all resource types, %d remaining: %s", len(msgs), strings.Join(msgs, ", ")))
}

func (r remaining) contentCondition() corev1.NamespaceCondition {
	if r.objects() == 0 {
		return condition(corev1.NamespaceContentRemaining, "False", "ContentRemoved", "All content successfully removed")
	}
	return condition(corev1.NamespaceContentRemaining, "True", "SomeResourcesRemain",
		"Some resources are remaining: "+describe(r.counts, "%s has %d resource instances"))
}

func (r remaining) finalizersCondition() corev1.NamespaceCondition {
	if len(r.finalizers) == 0 {
		return condition(corev1.NamespaceFinalizersRemaining, "False", "ContentHasNoFinalizers", "All content-preserving finalizers finished")
	}
	return condition(corev1.NamespaceFinalizersRemaining, "True", "SomeFinalizersRemain",
		"Some content in the namespace has finalizers remaining: "+describe(r.finalizers, "%s in %d resource instances"))
}

func condition(typ, st, reason, msg string) corev1.NamespaceCondition {
	return corev1.NamespaceCondition{Type: typ, Status: st, Reason: reason, Message: msg}
}

// mergeConditions brings the namespace's conditions in line with conds,
// as kube's namespace controller does, and reports whether that changed
// them: a condition not there yet is added at the end, one there is
// changed in place, and keeps its lastTransitionTime unless its status
// changes. Conditions of other types are left as they are.
func mergeConditions(st *corev1.NamespaceStatus, conds []corev1.NamespaceCondition, now meta.Time) (changed bool) {
	for _, nc := range conds {
		i := conditionIndex(st.Conditions, nc.Type)
		if i < 0 {
			nc.LastTransitionTime = now
			st.Conditions = append(st.Conditions, nc)
			changed = true
			continue
		}
		oc := &st.Conditions[i]
		if oc.Status == nc.Status && oc.Reason == nc.Reason && oc.Message == nc.Message {
			continue
		}
		if oc.Status != nc.Status {
			oc.LastTransitionTime = now
		}
		oc.Status, oc.Reason, oc.Message = nc.Status, nc.Reason, nc.Message
		changed = true
	}
	return changed
}

func conditionIndex(conds []corev1.NamespaceCondition, typ string) int {
	for i, c := range conds {
		if c.Type == typ {
			return i
		}
	}
	return -1
}

// setConditions writes the conditions, and the Terminating phase, to the
// namespace's /status when they change it.
func (c *Controller) setConditions(ctx context.Context, ns *corev1.Namespace, conds []corev1.NamespaceCondition) error {
	changed := ns.Status.Phase != corev1.NamespaceTerminating
	ns.Status.Phase = corev1.NamespaceTerminating
	if !mergeConditions(&ns.Status, conds, meta.Now()) && !changed {
		return nil
	}
	err := c.c.Update(ctx, "/api/v1/namespaces/"+ns.Name+"/status", ns)
	if status.IsNotFound(err) {
		return nil
	}
	return err
}
