package admission

import (
	"context"

	"github.com/kapi-dev/kapi/apiserver/admission/match"
	arv1 "github.com/kapi-dev/kapi/kinds/admissionregistrationv1"
)

// WebhookConditions is the compiler of webhooks' matchConditions for
// the core's webhook plugin (webhook.Options.Conditions).
func (c *Compiler) WebhookConditions() match.ConditionCompiler { return webhookConditions{c} }

type webhookConditions struct{ c *Compiler }

func (w webhookConditions) CompileConditions(conds []arv1.MatchCondition) (match.Conditions, error) {
	cs, err := w.c.CompileConditions(conds)
	if err != nil {
		return nil, err
	}
	return webhookConditionSet{cs}, nil
}

type webhookConditionSet struct{ cs *Conditions }

func (w webhookConditionSet) Match(ctx context.Context, in *match.ConditionInput) (bool, string, error) {
	r := in.Resource
	return w.cs.Match(ctx, &Input{
		Object: in.Object, OldObject: in.OldObject, Request: in.Request,
		User: in.User, Authorizer: in.Authorizer,
		Resource:    GVR{Group: r.Group, Version: r.Version, Resource: r.Resource},
		Subresource: in.Subresource, Namespace: in.Namespace, Name: in.Name,
	})
}
