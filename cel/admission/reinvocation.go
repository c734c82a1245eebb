package admission

import (
	"encoding/json"

	kadm "github.com/kapi-dev/kapi/apiserver/admission"
	"github.com/kapi-dev/kapi/meta"
)

// reinvocationKey is where the plugin keeps its reinvocation state in a
// request's admission.Reinvocation.
type reinvocationKey struct{}

// policyKey names one invocation: a policy, a binding and a param.
type policyKey struct {
	policy, binding, paramNamespace, paramName string
}

func invocationKey(inv invocation) policyKey {
	k := policyKey{policy: inv.h.policy.Policy.Name, binding: inv.binding.Name}
	if md, ok := inv.param["metadata"].(map[string]any); ok {
		k.paramNamespace, _ = md["namespace"].(string)
		k.paramName, _ = md["name"].(string)
	}
	return k
}

// reinvocation is what the plugin remembers between the passes of the
// admission chain over one request, as kube-apiserver's policy
// reinvocation context: the object it left, the IfNeeded invocations
// that ran since the object last changed, and those to run again.
type reinvocation struct {
	r *kadm.Reinvocation
	// last is the JSON of the object the plugin's last pass left.
	last []byte
	// invokedSinceChange are the IfNeeded invocations that ran since
	// the object last changed; they run again if it changes later.
	invokedSinceChange map[policyKey]bool
	// again are the invocations the second pass runs.
	again map[policyKey]bool
}

// reinvocationOf returns the plugin's state for a request, nil when the
// request is not run by an admission chain that reinvokes.
func reinvocationOf(a *kadm.Request) *reinvocation {
	if a.Reinvocation == nil {
		return nil
	}
	if rc, ok := a.Reinvocation.Value(reinvocationKey{}).(*reinvocation); ok {
		return rc
	}
	rc := &reinvocation{r: a.Reinvocation}
	a.Reinvocation.SetValue(reinvocationKey{}, rc)
	return rc
}

// isReinvoke reports whether this is the chain's second pass.
func (rc *reinvocation) isReinvoke() bool { return rc != nil && rc.r.IsReinvoke() }

// shouldReinvoke reports whether invocation k runs in the second pass.
func (rc *reinvocation) shouldReinvoke(k policyKey) bool { return rc != nil && rc.again[k] }

// changedSince reports whether o differs from what the plugin left.
func (rc *reinvocation) changedSince(o meta.Object) bool {
	b, _ := json.Marshal(o)
	return string(b) != string(rc.last)
}

// remember records the object the plugin's pass left.
func (rc *reinvocation) remember(o meta.Object) {
	if rc != nil {
		rc.last, _ = json.Marshal(o)
	}
}

// invoked records that an IfNeeded invocation ran.
func (rc *reinvocation) invoked(k policyKey) {
	if rc == nil {
		return
	}
	if rc.invokedSinceChange == nil {
		rc.invokedSinceChange = map[policyKey]bool{}
	}
	rc.invokedSinceChange[k] = true
}

// requireReinvoke marks the IfNeeded invocations that ran before the
// object changed to run again.
func (rc *reinvocation) requireReinvoke() {
	if rc == nil || len(rc.invokedSinceChange) == 0 {
		return
	}
	if rc.again == nil {
		rc.again = map[policyKey]bool{}
	}
	for k := range rc.invokedSinceChange {
		rc.again[k] = true
	}
	rc.invokedSinceChange = nil
}

// mutated tells the chain that the object changed, so that the
// mutating plugins run again.
func (rc *reinvocation) mutated() {
	if rc != nil {
		rc.r.SetShouldReinvoke()
	}
}
