package namespace

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kapi-dev/kapi/controllers/internal/apiclient"
	"github.com/kapi-dev/kapi/kinds/corev1"
	"github.com/kapi-dev/kapi/meta"
)

// TestMergeConditions: a condition keeps its place, and its
// lastTransitionTime unless its status changes; new ones go at the end;
// others are left alone.
func TestMergeConditions(t *testing.T) {
	then, now := meta.NewTime(time.Unix(1000, 0)), meta.NewTime(time.Unix(2000, 0))
	c := func(typ, st, reason string, at meta.Time) corev1.NamespaceCondition {
		return corev1.NamespaceCondition{Type: typ, Status: st, Reason: reason, Message: reason, LastTransitionTime: at}
	}
	for _, tc := range []struct {
		name        string
		had, conds  []corev1.NamespaceCondition
		want        []corev1.NamespaceCondition
		wantChanged bool
	}{
		{"none yet", nil, []corev1.NamespaceCondition{c("A", "False", "Ok", meta.Time{}), c("B", "True", "Bad", meta.Time{})},
			[]corev1.NamespaceCondition{c("A", "False", "Ok", now), c("B", "True", "Bad", now)}, true},
		{"unchanged", []corev1.NamespaceCondition{c("A", "False", "Ok", then)}, []corev1.NamespaceCondition{c("A", "False", "Ok", meta.Time{})},
			[]corev1.NamespaceCondition{c("A", "False", "Ok", then)}, false},
		{"message changes, status stays", []corev1.NamespaceCondition{c("A", "True", "Bad", then)}, []corev1.NamespaceCondition{c("A", "True", "Worse", meta.Time{})},
			[]corev1.NamespaceCondition{c("A", "True", "Worse", then)}, true},
		{"status changes", []corev1.NamespaceCondition{c("X", "True", "Other", then), c("A", "True", "Bad", then)}, []corev1.NamespaceCondition{c("B", "False", "Ok", meta.Time{}), c("A", "False", "Ok", meta.Time{})},
			[]corev1.NamespaceCondition{c("X", "True", "Other", then), c("A", "False", "Ok", now), c("B", "False", "Ok", now)}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := corev1.NamespaceStatus{Conditions: tc.had}
			changed := mergeConditions(&st, tc.conds, now)
			if changed != tc.wantChanged {
				t.Errorf("changed %v, want %v", changed, tc.wantChanged)
			}
			if diff := cmp.Diff(tc.want, st.Conditions); diff != "" {
				t.Errorf("conditions (-want +got):\n%s", diff)
			}
		})
	}
}

// TestConditionMessages: the failing conditions word what went wrong as
// kube's namespace controller does.
func TestConditionMessages(t *testing.T) {
	var r conditionReport
	r.discoveryFailed(&apiclient.DiscoveryError{Groups: map[string]error{"b.example.com/v1": errors.New("gone"), "a.example.com/v1": errors.New("down")}})
	r.contentFailed(errors.New("second"))
	r.contentFailed(errors.New("first"))
	left := remaining{counts: map[string]int{"widgets.stable.example.com": 2, "secrets.": 1}, finalizers: map[string]int{"example.com/hold": 2, "a/b": 1}}
	got := withoutTimes(r.conditions(left))
	want := []corev1.NamespaceCondition{
		{Type: "NamespaceDeletionDiscoveryFailure", Status: "True", Reason: "DiscoveryFailed",
			Message: "Discovery failed for some groups, 2 failing: unable to retrieve the complete list of server APIs: a.example.com/v1: down, b.example.com/v1: gone"},
		{Type: "NamespaceDeletionGroupVersionParsingFailure", Status: "False", Reason: "ParsedGroupVersions", Message: "All legacy kube types successfully parsed"},
		{Type: "NamespaceDeletionContentFailure", Status: "True", Reason: "ContentDeletionFailed", Message: "Failed to delete all resource types, 2 remaining: first, second"},
		{Type: "NamespaceContentRemaining", Status: "True", Reason: "SomeResourcesRemain",
			Message: "Some resources are remaining: secrets. has 1 resource instances, widgets.stable.example.com has 2 resource instances"},
		{Type: "NamespaceFinalizersRemaining", Status: "True", Reason: "SomeFinalizersRemain",
			Message: "Some content in the namespace has finalizers remaining: a/b in 1 resource instances, example.com/hold in 2 resource instances"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("conditions (-want +got):\n%s", diff)
	}
	if !r.failed() {
		t.Error("a pass with failures is not failed")
	}
}

func withoutTimes(conds []corev1.NamespaceCondition) []corev1.NamespaceCondition {
	for i := range conds {
		conds[i].LastTransitionTime = meta.Time{}
	}
	return conds
}
