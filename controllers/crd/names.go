package crd

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/kapi-dev/kapi/kinds/apiextensionsv1"
	"github.com/kapi-dev/kapi/meta"
)

// acceptNames arbitrates the definition's names against the names other
// definitions of its group have been given, as kube's naming controller
// does, and writes the result; done reports that it wrote (the write
// comes back as an event).
func (c *Controller) acceptNames(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition) (done bool, err error) {
	if reflect.DeepEqual(crd.Spec.Names, crd.Status.AcceptedNames) && crd.Condition(apiextensionsv1.NamesAccepted) != nil {
		return false, nil
	}
	others, err := c.groupDefinitions(ctx, crd.Spec.Group, crd.Name)
	if err != nil {
		return false, err
	}
	names, accepted, established := calculateNames(crd, others)
	cur := crd.Condition(apiextensionsv1.NamesAccepted)
	if reflect.DeepEqual(names, crd.Status.AcceptedNames) && cur != nil && cur.Status == accepted.Status &&
		cur.Reason == accepted.Reason && cur.Message == accepted.Message {
		return false, nil
	}
	now := meta.Now()
	crd.Status.AcceptedNames = names
	crd.SetCondition(accepted, now)
	crd.SetCondition(established, now)
	if err := c.updateStatus(ctx, crd); err != nil {
		return true, err
	}
	return true, c.requeueGroup(ctx, crd.Name, crd.Spec.Group)
}

// groupDefinitions lists the other definitions of a group.
func (c *Controller) groupDefinitions(ctx context.Context, group, except string) ([]apiextensionsv1.CustomResourceDefinition, error) {
	var list struct {
		Items []apiextensionsv1.CustomResourceDefinition `json:"items"`
	}
	if err := c.c.Get(ctx, definitions, &list); err != nil {
		return nil, err
	}
	out := list.Items[:0]
	for _, d := range list.Items {
		if d.Spec.Group == group && d.Name != except {
			out = append(out, d)
		}
	}
	return out, nil
}

// requeueGroup queues the other definitions of a group (of the named
// definition's group when group is ""), whose names may now be free.
func (c *Controller) requeueGroup(ctx context.Context, name, group string) error {
	if group == "" {
		_, g, ok := strings.Cut(name, ".")
		if !ok {
			return nil
		}
		group = g
	}
	others, err := c.groupDefinitions(ctx, group, name)
	if err != nil {
		return err
	}
	for _, d := range others {
		c.queue.Add(d.Name)
	}
	return nil
}

// calculateNames is kube's arbitration: each requested name is accepted
// when it is already this definition's or no other definition of the
// group has it; the condition reports the last conflict found.
func calculateNames(crd *apiextensionsv1.CustomResourceDefinition, others []apiextensionsv1.CustomResourceDefinition) (
	apiextensionsv1.CustomResourceDefinitionNames, apiextensionsv1.CustomResourceDefinitionCondition, apiextensionsv1.CustomResourceDefinitionCondition) {
	resources, kinds := map[string]bool{}, map[string]bool{}
	for _, o := range others {
		a := o.Status.AcceptedNames
		for _, n := range append([]string{a.Plural, a.Singular}, a.ShortNames...) {
			resources[n] = true
		}
		kinds[a.Kind], kinds[a.ListKind] = true, true
	}
	delete(resources, "")
	delete(kinds, "")
	want, have := crd.Spec.Names, crd.Status.AcceptedNames
	out := have
	cond := apiextensionsv1.CustomResourceDefinitionCondition{Type: apiextensionsv1.NamesAccepted, Status: apiextensionsv1.ConditionUnknown}
	conflict := func(reason string, err error) {
		cond.Status, cond.Reason, cond.Message = apiextensionsv1.ConditionFalse, reason, err.Error()
	}
	if err := freshOrOwn(want.Plural, have.Plural, resources); err != nil {
		conflict("PluralConflict", err)
	} else {
		out.Plural = want.Plural
	}
	if err := freshOrOwn(want.Singular, have.Singular, resources); err != nil {
		conflict("SingularConflict", err)
	} else {
		out.Singular = want.Singular
	}
	if !slices.Equal(want.ShortNames, have.ShortNames) {
		var msgs []string
		for _, sn := range want.ShortNames {
			if slices.Contains(have.ShortNames, sn) || sn == have.Plural || sn == have.Singular {
				continue
			}
			if err := freshOrOwn(sn, "", resources); err != nil {
				msgs = append(msgs, err.Error())
			}
		}
		if len(msgs) > 0 {
			conflict("ShortNamesConflict", aggregate(msgs))
		} else {
			out.ShortNames = want.ShortNames
		}
	}
	if err := freshOrOwn(want.Kind, have.Kind, kinds); err != nil {
		conflict("KindConflict", err)
	} else {
		out.Kind = want.Kind
	}
	if err := freshOrOwn(want.ListKind, have.ListKind, kinds); err != nil {
		conflict("ListKindConflict", err)
	} else {
		out.ListKind = want.ListKind
	}
	out.Categories = want.Categories
	if cond.Status == apiextensionsv1.ConditionUnknown {
		cond.Status, cond.Reason, cond.Message = apiextensionsv1.ConditionTrue, "NoConflicts", "no conflicts found"
	}
	established := apiextensionsv1.CustomResourceDefinitionCondition{Type: apiextensionsv1.Established,
		Status: apiextensionsv1.ConditionFalse, Reason: "NotAccepted", Message: "not all names are accepted"}
	if old := crd.Condition(apiextensionsv1.Established); old != nil {
		established = *old
	}
	if established.Status != apiextensionsv1.ConditionTrue && cond.Status == apiextensionsv1.ConditionTrue {
		established = apiextensionsv1.CustomResourceDefinitionCondition{Type: apiextensionsv1.Established,
			Status: apiextensionsv1.ConditionFalse, Reason: "Installing", Message: "the initial names have been accepted"}
	}
	return out, cond, established
}

func freshOrOwn(want, have string, used map[string]bool) error {
	if want == have || !used[want] {
		return nil
	}
	return fmt.Errorf("%q is already in use", want)
}

// aggregate joins messages as kube's error aggregates print them.
func aggregate(msgs []string) error {
	if len(msgs) == 1 {
		return fmt.Errorf("%s", msgs[0])
	}
	return fmt.Errorf("[%s]", strings.Join(msgs, ", "))
}
