// Package pipeline is the write pipeline: every create, update, patch,
// apply, status and scale write, and every delete, runs through a
// [Write], which reads the stored object, builds the requested one from
// it, checks preconditions, sets what the server owns (uid, timestamps,
// generation, the spec/status split, names from generateName), defaults,
// records managedFields, validates and stores with compare-and-swap,
// starting again when a concurrent write won the race.
//
// Admission is one marked step of it ([Write.Run] numbers the steps):
// mutating admission after defaulting, validating admission after
// validation, both through an admission.Chain, where webhooks and
// policies join. The kind's hooks (kinds.Kind) run where kube-apiserver
// runs its strategies'. The pipeline works in the version of the request
// and converts to the storage version only to store, through the
// registry below it; it knows nothing of HTTP: the handlers above it
// decode the request, build the Write and answer with its outcome.
package pipeline
