package crd

import (
	"context"

	"github.com/kapi-dev/kapi/kinds/apiextensionsv1"
	"github.com/kapi-dev/kapi/meta"
)

// approve says whether a definition of a protected group (k8s.io,
// kubernetes.io) carries its API approval, in the
// KubernetesAPIApprovalPolicyConformant condition, as kube's API approval
// controller does; done reports that it wrote (the write comes back as
// an event).
func (c *Controller) approve(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition) (done bool, err error) {
	cond := apiextensionsv1.ApprovalCondition(crd)
	if cond == nil {
		return false, nil
	}
	if old := crd.Condition(cond.Type); old != nil && old.Status == cond.Status && old.Reason == cond.Reason && old.Message == cond.Message {
		return false, nil
	}
	crd.SetCondition(*cond, meta.Now())
	return true, c.updateStatus(ctx, crd)
}
