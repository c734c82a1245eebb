// Package kinds is the home of kapi's built-in kinds, one package per
// group and version (corev1, eventsv1, coordinationv1, apiextensionsv1;
// the RBAC kinds are in auth/rbac). Each serves kube-apiserver's kind with
// its wire form, validation, field selectors and the Table kubectl
// prints; this package holds no code, only the tests that check those
// kinds together (their Tables against kube-apiserver's).
package kinds
