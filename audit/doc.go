// Package audit records who did what to a kapi server: one audit.k8s.io/v1
// Event per request, as JSON lines, at the level a Policy in
// kube-apiserver's audit policy file format chooses (None, Metadata,
// Request, RequestResponse). The records parse with the tooling written
// for kube-apiserver's --audit-log-path.
//
// The server fills the events in; a host gives a [Logger] to
// apiserver.Options.Audit:
//
//	policy, _ := audit.LoadPolicy("audit-policy.yaml")
//	opts.Audit = audit.NewLogger(logFile, policy)
package audit
