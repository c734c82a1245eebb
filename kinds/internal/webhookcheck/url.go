// Package webhookcheck validates how kube-apiserver reaches a webhook,
// as both admission webhook configurations and CustomResourceDefinition
// conversion webhooks name it.
package webhookcheck

import (
	"net/url"

	"github.com/kapi-dev/kapi/status"
)

// urlForm is the hint kube-apiserver adds to a malformed webhook URL.
const urlForm = "; desired format: https://host[/path]"

// URLErrors requires an https URL with a host and without user
// information, fragment or query, with kube-apiserver's messages.
func URLErrors(raw string, p status.Path) status.FieldErrors {
	u, err := url.Parse(raw)
	if err != nil {
		return status.FieldErrors{status.Required(p, "url must be a valid URL: "+err.Error()+urlForm)}
	}
	var errs status.FieldErrors
	if u.Scheme != "https" {
		errs = append(errs, status.InvalidValue(p, u.Scheme, "'https' is the only allowed URL scheme"+urlForm))
	}
	if u.Host == "" {
		errs = append(errs, status.InvalidValue(p, u.Host, "host must be specified"+urlForm))
	}
	if u.User != nil {
		errs = append(errs, status.InvalidValue(p, u.User.String(), "user information is not permitted in the URL"))
	}
	if u.Fragment != "" {
		errs = append(errs, status.InvalidValue(p, u.Fragment, "fragments are not permitted in the URL"))
	}
	if u.RawQuery != "" {
		errs = append(errs, status.InvalidValue(p, u.RawQuery, "query parameters are not permitted in the URL"))
	}
	return errs
}
