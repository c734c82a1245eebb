package apiextensionsv1

import (
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"

	"github.com/kapi-dev/kapi/kinds/internal/webhookcheck"
	"github.com/kapi-dev/kapi/status"
)

// spec.conversion is checked as kube-apiserver checks its internal form,
// which holds the webhook's clientConfig and conversionReviewVersions
// directly in spec.conversion: its problems are reported at
// spec.conversion.webhookClientConfig and
// spec.conversion.conversionReviewVersions.

// conversionOptions are what an update carries over from the definition
// it replaces.
type conversionOptions struct {
	// requireKnownReview: the review versions must name one kapi sends
	// (an update may keep a list that did not).
	requireKnownReview bool
	// allowBadCABundle: a caBundle that holds no certificate passes (on
	// create, and until the definition is established or while the one
	// it replaces had such a bundle).
	allowBadCABundle bool
}

// conversionOptionsFor is kube's: everything is checked on create.
func conversionOptionsFor(old *CustomResourceDefinition) conversionOptions {
	if old == nil {
		return conversionOptions{requireKnownReview: true, allowBadCABundle: true}
	}
	o := conversionOptions{requireKnownReview: true}
	if c := old.Spec.Conversion; c != nil && c.Webhook != nil && len(c.Webhook.ConversionReviewVersions) > 0 {
		o.requireKnownReview = reviewVersion(c.Webhook.ConversionReviewVersions) != ""
	}
	o.allowBadCABundle = !old.IsEstablished()
	if c := old.Spec.Conversion; !o.allowBadCABundle && c != nil && c.Webhook != nil && c.Webhook.ClientConfig != nil {
		old := c.Webhook.ClientConfig.CABundle
		o.allowBadCABundle = len(old) > 0 && caBundleError(old) != nil
	}
	return o
}

// conversionErrors checks spec.conversion (at p) in kube's order.
func conversionErrors(c *CustomResourceConversion, p status.Path, o conversionOptions) status.FieldErrors {
	if c == nil {
		return nil
	}
	var errs status.FieldErrors
	switch c.Strategy {
	case "":
		errs = append(errs, status.Required(p.Child("strategy"), ""))
	case NoneConverter, WebhookConverter:
	default:
		errs = append(errs, status.NotSupported(p.Child("strategy"), c.Strategy, []string{NoneConverter, WebhookConverter}))
	}
	var cc *WebhookClientConfig
	var reviews []string
	if c.Webhook != nil {
		cc, reviews = c.Webhook.ClientConfig, c.Webhook.ConversionReviewVersions
	}
	ccp, rp := p.Child("webhookClientConfig"), p.Child("conversionReviewVersions")
	if c.Strategy != WebhookConverter {
		if cc != nil {
			errs = append(errs, status.ForbiddenField(ccp, "should not be set when strategy is not set to Webhook"))
		}
		if len(reviews) > 0 {
			errs = append(errs, status.ForbiddenField(rp, "should not be set when strategy is not set to Webhook"))
		}
		return errs
	}
	if cc == nil {
		errs = append(errs, status.Required(ccp, "required when strategy is set to Webhook"))
	} else {
		errs = append(errs, clientConfigErrors(cc, ccp, o)...)
	}
	return append(errs, reviewVersionErrors(reviews, rp, o.requireKnownReview)...)
}

func clientConfigErrors(cc *WebhookClientConfig, p status.Path, o conversionOptions) status.FieldErrors {
	var errs status.FieldErrors
	switch {
	case (cc.URL == nil) == (cc.Service == nil):
		errs = append(errs, status.Required(p, "exactly one of url or service is required"))
	case cc.URL != nil:
		errs = append(errs, webhookcheck.URLErrors(*cc.URL, p.Child("url"))...)
	default:
		errs = append(errs, serviceErrors(cc.Service, p.Child("service"))...)
	}
	if len(cc.CABundle) > 0 && !o.allowBadCABundle {
		if err := caBundleError(cc.CABundle); err != nil {
			errs = append(errs, status.InvalidValue(p.Child("caBundle"), cc.CABundle, err.Error()))
		}
	}
	return errs
}

// serviceErrors: a name, a namespace, a port and a path of DNS
// subdomains.
func serviceErrors(s *ServiceReference, p status.Path) status.FieldErrors {
	var errs status.FieldErrors
	if s.Name == "" {
		errs = append(errs, status.Required(p.Child("name"), ""))
	}
	if s.Namespace == "" {
		errs = append(errs, status.Required(p.Child("namespace"), ""))
	}
	port := int32(443) // kube's default
	if s.Port != nil {
		port = *s.Port
	}
	if port < 1 || port > 65535 {
		errs = append(errs, status.InvalidValue(p.Child("port"), port, "port is not valid: must be between 1 and 65535, inclusive"))
	}
	if s.Path == nil {
		return errs
	}
	return append(errs, servicePathErrors(*s.Path, p.Child("path"))...)
}

func servicePathErrors(path string, p status.Path) status.FieldErrors {
	switch path {
	case "", "/":
		return nil
	case "//":
		return status.FieldErrors{status.InvalidValue(p, path, "segment[0] may not be empty")}
	}
	var errs status.FieldErrors
	if !strings.HasPrefix(path, "/") {
		errs = append(errs, status.InvalidValue(p, path, "must start with a '/'"))
	}
	for i, seg := range strings.Split(strings.TrimSuffix(path[1:], "/"), "/") {
		if seg == "" {
			errs = append(errs, status.InvalidValue(p, path, fmt.Sprintf("segment[%d] may not be empty", i)))
			continue
		}
		for _, msg := range dns1123SubdomainErrors(seg) {
			errs = append(errs, status.InvalidValue(p, path, fmt.Sprintf("segment[%d]: %s", i, msg)))
		}
	}
	return errs
}

// reviewVersionErrors checks conversionReviewVersions: at least one, no
// repeats, each a DNS-1035 label, and (when required) one kapi sends.
func reviewVersionErrors(versions []string, p status.Path, requireKnown bool) status.FieldErrors {
	if len(versions) == 0 {
		return status.FieldErrors{status.Required(p, "")}
	}
	var errs status.FieldErrors
	seen := map[string]bool{}
	for i, v := range versions {
		if seen[v] {
			errs = append(errs, status.InvalidValue(p.Index(i), v, "duplicate version"))
			continue
		}
		seen[v] = true
		for _, msg := range dns1035LabelErrors(v) {
			errs = append(errs, status.InvalidValue(p.Index(i), v, msg))
		}
	}
	if requireKnown && reviewVersion(versions) == "" {
		errs = append(errs, status.InvalidValue(p, versions, "must include at least one of v1, v1beta1"))
	}
	return errs
}

// caBundleError is why a caBundle holds no certificate to trust, as
// kube's client transport words it.
func caBundleError(b []byte) error {
	if x509.NewCertPool().AppendCertsFromPEM(b) {
		return nil
	}
	const prefix = "unable to load root certificates: "
	for rest := b; len(rest) > 0; {
		var block *pem.Block
		if block, rest = pem.Decode(rest); block == nil {
			return errors.New(prefix + "unable to parse bytes as PEM block")
		}
		if block.Type != "CERTIFICATE" || len(block.Headers) != 0 {
			continue
		}
		if _, err := x509.ParseCertificate(block.Bytes); err != nil {
			return fmt.Errorf("%sfailed to parse certificate: %w", prefix, err)
		}
	}
	return errors.New(prefix + "no valid certificate authority data seen")
}
