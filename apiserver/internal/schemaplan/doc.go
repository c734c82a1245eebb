// Package schemaplan compiles a kind's schema, once at registration, into
// the plan every write of the kind runs: defaulting (of the Go value where
// it can, of the JSON form where it cannot), pruning of unknown fields for
// kinds served as meta.Unstructured, structural validation and the CEL
// rules (x-kubernetes-validations) with their transition rules.
//
// It sits in the write pipeline's defaulting and validation steps: the
// pipeline calls [Plan.ApplyDefaults] before and after mutating
// admission, and [Plan.Validate] then [Plan.ValidateRules] before
// validating admission. Typed kinds go through the top-level fields that
// have rules only; metadata has checks of its own.
package schemaplan
