package admission

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	arv1 "github.com/kapi-dev/kapi/kinds/admissionregistrationv1"
)

// MutatingPolicy is a compiled MutatingAdmissionPolicy.
type MutatingPolicy struct {
	Policy    *arv1.MutatingAdmissionPolicy
	conds     *Conditions
	vars      map[string]*program
	mutations []mutation
}

// mutation is one compiled mutation; prog is nil for a mutation whose
// patch type is not known (kube-apiserver's validation refuses those).
type mutation struct {
	patchType arv1.PatchType
	prog      *program
}

var (
	applyConfigType = cel.ObjectType(objectTypeName)
	jsonPatchesType = cel.ListType(cel.ObjectType(jsonPatchTypeName))
)

// CompileMutating compiles every expression of p: variables and
// matchConditions as a validating policy's, mutations with the types
// they construct. Expressions that do not compile fail when evaluated
// (failurePolicy decides).
func (c *Compiler) CompileMutating(p *arv1.MutatingAdmissionPolicy) (*MutatingPolicy, error) {
	spec := envSpec{params: p.Spec.ParamKind != nil}
	vars, spec, err := c.compileVariables(p.Spec.Variables, spec)
	if err != nil {
		return nil, err
	}
	conds, err := c.compileConditions(p.Spec.MatchConditions, spec)
	if err != nil {
		return nil, err
	}
	spec.patch = true
	env, err := c.env(spec)
	if err != nil {
		return nil, err
	}
	mp := &MutatingPolicy{Policy: p, conds: conds, vars: vars}
	for _, m := range p.Spec.Mutations {
		mp.mutations = append(mp.mutations, compileMutation(env, m))
	}
	return mp, nil
}

func compileMutation(env *cel.Env, m arv1.Mutation) mutation {
	switch {
	case m.PatchType == arv1.PatchTypeApplyConfiguration && m.ApplyConfiguration != nil:
		return mutation{patchType: m.PatchType, prog: compile(env, m.ApplyConfiguration.Expression, applyConfigType)}
	case m.PatchType == arv1.PatchTypeJSONPatch && m.JSONPatch != nil:
		return mutation{patchType: m.PatchType, prog: compile(env, m.JSONPatch.Expression, jsonPatchesType)}
	}
	return mutation{patchType: m.PatchType}
}

// matches evaluates the policy's matchConditions on in.
func (mp *MutatingPolicy) matches(ctx context.Context, in *Input) (bool, error) {
	matched, _, err := mp.conds.match(newActivation(ctx, in, ConditionsBudget, mp.vars))
	return matched, err
}

// target is what a mutation changes: the object as JSON, and the
// structured-merge-diff type of its kind for apply configurations.
type target struct {
	object map[string]any
	typ    *typed.ParseableType
}

// mutate evaluates mutation i on in and returns the object it makes of
// t.object. An error is the policy's (failurePolicy decides).
func (mp *MutatingPolicy) mutate(ctx context.Context, i int, in *Input, t target) (map[string]any, error) {
	m := mp.mutations[i]
	if m.prog == nil {
		return nil, fmt.Errorf("unsupported patch type %q", m.patchType)
	}
	if m.prog.err != nil {
		return nil, m.prog.err
	}
	a := newActivation(ctx, in, RuntimeBudget, mp.vars)
	val, evalErr, err := a.eval(m.prog)
	if err != nil {
		return nil, err
	}
	if evalErr != nil {
		return nil, evalErr
	}
	if m.patchType == arv1.PatchTypeJSONPatch {
		return applyJSONPatch(t.object, val)
	}
	return applyConfiguration(t, val)
}

// applyConfiguration merges the object an ApplyConfiguration expression
// built into the object, as kube-apiserver does: typed by the kind's
// schema, merged without managedFields, with no atomic list, map or
// struct set.
func applyConfiguration(t target, val ref.Val) (map[string]any, error) {
	obj, ok := val.(*objectVal)
	if !ok {
		return nil, fmt.Errorf("unsupported return type from ApplyConfiguration expression: %v", val.Type())
	}
	if err := typeNameError(obj, objectTypeName); err != nil {
		return nil, fmt.Errorf("type mismatch: %w", err)
	}
	patch, err := obj.native()
	if err != nil {
		return nil, fmt.Errorf("invalid return type: %w", err)
	}
	patch["apiVersion"], patch["kind"] = t.object["apiVersion"], t.object["kind"]
	out, err := mergeApplied(t, patch)
	if err != nil {
		return nil, fmt.Errorf("error applying patch: %w", err)
	}
	return out, nil
}

// applyJSONPatch applies the operations a JSONPatch expression built to
// the object. A failed test operation leaves the object as it was.
func applyJSONPatch(object map[string]any, val ref.Val) (map[string]any, error) {
	ops, err := patchOperations(val)
	if err != nil {
		return nil, err
	}
	doc, err := json.Marshal(object)
	if err != nil {
		return nil, fmt.Errorf("failed to create JSON patch: %w", err)
	}
	patched, err := ops.Apply(doc)
	if errors.Is(err, jsonpatch.ErrTestFailed) {
		return object, nil
	}
	if err != nil {
		return nil, fmt.Errorf("JSON Patch: %s", v4Wording.Replace(err.Error()))
	}
	var out map[string]any
	if err := json.Unmarshal(patched, &out); err != nil {
		return nil, fmt.Errorf("JSON Patch: %w", err)
	}
	return out, nil
}

// v4Wording words json-patch v5's errors as v4, which kube-apiserver
// uses, words them.
var v4Wording = strings.NewReplacer("unable to get nonexistent key", "Unable to get nonexistent key",
	"unable to remove nonexistent key", "Unable to remove nonexistent key")

// patchOperations turns the list of JSONPatch values into a patch.
func patchOperations(val ref.Val) (jsonpatch.Patch, error) {
	list, ok := val.(traits.Lister)
	if !ok {
		return nil, errors.New("type mismatch: JSONPatchType.expression should evaluate to array")
	}
	var out jsonpatch.Patch
	for it := list.Iterator(); it.HasNext() == types.True; {
		v := it.Next()
		p, ok := v.(*jsonPatchVal)
		if !ok {
			return nil, fmt.Errorf("type mismatch: JSONPatchType.expression should evaluate to array of JSONPatch: cannot convert to native type: %v", v.Type())
		}
		op, err := p.operation()
		if err != nil {
			return nil, err
		}
		out = append(out, op)
	}
	return out, nil
}

// operation is the JSON form of one operation.
func (p *jsonPatchVal) operation() (jsonpatch.Operation, error) {
	raw := func(s string) *json.RawMessage {
		m := json.RawMessage(strconv.Quote(s))
		return &m
	}
	op := jsonpatch.Operation{"op": raw(p.op), "path": raw(p.path)}
	if p.from != "" {
		op["from"] = raw(p.from)
	}
	if p.value == nil {
		return op, nil
	}
	if obj, ok := p.value.(*objectVal); ok {
		if err := typeNameError(obj, obj.typeName); err != nil {
			return nil, fmt.Errorf("type mismatch: %w", err)
		}
	}
	n, err := toNative(p.value)
	if err == nil {
		var b []byte
		if b, err = json.Marshal(n); err == nil {
			m := json.RawMessage(b)
			op["value"] = &m
			return op, nil
		}
	}
	return nil, fmt.Errorf("JSONPath valueExpression evaluated to a type that could not marshal to JSON: %w", err)
}
