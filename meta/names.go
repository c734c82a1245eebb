package meta

// QualifiedNameErrors returns why s is not a qualified name (an optional
// DNS subdomain prefix and '/', then a name of alphanumerics, '-', '_'
// and '.'), in kube-apiserver's words, or nothing. Label keys are
// qualified names; so are the values of some fields, as an Event's
// reporting controller.
func QualifiedNameErrors(s string) []string { return labelKeyErrors(s) }
