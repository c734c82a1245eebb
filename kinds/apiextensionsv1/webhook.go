package apiextensionsv1

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// Converter returns how a definition's objects convert between its
// versions: nil for strategy None (only apiVersion changes), or a call
// of its conversion webhook, as kube-apiserver makes it (a
// ConversionReview POSTed over HTTPS, trusting the caBundle).
func Converter(crd *CustomResourceDefinition) (apiserver.ConvertFunc, *status.FieldError) {
	w, err := newWebhook(crd)
	if w == nil || err != nil {
		return nil, err
	}
	return w.convert, nil
}

// newWebhook is the conversion webhook of a definition, nil for
// strategy None.
func newWebhook(crd *CustomResourceDefinition) (*webhook, *status.FieldError) {
	c := crd.Spec.Conversion
	if c == nil || c.Strategy != WebhookConverter {
		return nil, nil
	}
	p := status.NewPath("spec", "conversion", "webhook", "clientConfig")
	if c.Webhook == nil || c.Webhook.ClientConfig == nil {
		return nil, status.Required(p, "required when strategy is set to Webhook")
	}
	review := reviewVersion(c.Webhook.ConversionReviewVersions)
	if review == "" {
		return nil, reviewVersionsError(c.Webhook.ConversionReviewVersions)
	}
	cc := c.Webhook.ClientConfig
	target, err := webhookURL(cc)
	if err != nil {
		return nil, status.InvalidValue(p, "", err.Error())
	}
	tlsCfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if len(cc.CABundle) > 0 {
		// A bundle without a certificate trusts nothing: kube-apiserver
		// takes such a definition, whose conversions then fail.
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(cc.CABundle)
		tlsCfg.RootCAs = pool
	}
	w := &webhook{review: review, url: target, client: &http.Client{Timeout: 30 * time.Second,
		Transport: &http.Transport{TLSClientConfig: tlsCfg, ForceAttemptHTTP2: true}}}
	return w, nil
}

// webhookURL is the webhook's URL, or its Service's in-cluster name.
func webhookURL(cc *WebhookClientConfig) (string, error) {
	if cc.URL != nil {
		u, err := url.Parse(*cc.URL)
		if err != nil || u.Scheme != "https" || u.Host == "" {
			return "", fmt.Errorf("url must be an https URL")
		}
		return *cc.URL, nil
	}
	if s := cc.Service; s != nil {
		port := int32(443)
		if s.Port != nil {
			port = *s.Port
		}
		path := ""
		if s.Path != nil {
			path = *s.Path
		}
		return "https://" + s.Name + "." + s.Namespace + ".svc:" + strconv.Itoa(int(port)) + path, nil
	}
	return "", fmt.Errorf("exactly one of url or service is required")
}

type webhook struct {
	review string // the ConversionReview version sent: v1 or v1beta1
	url    string
	client *http.Client
}

// reviewVersions are the ConversionReview versions kapi sends, as
// kube-apiserver does.
var reviewVersions = []string{"v1", "v1beta1"}

// reviewVersion is the first of a webhook's conversionReviewVersions
// that kapi sends, or "" when there is none.
func reviewVersion(versions []string) string {
	for _, v := range versions {
		if contains(reviewVersions, v) {
			return v
		}
	}
	return ""
}

// reviewVersionsError is kube-apiserver's refusal of
// conversionReviewVersions without a version it sends.
func reviewVersionsError(versions []string) *status.FieldError {
	return status.InvalidValue(status.NewPath("spec", "conversion", "webhook", "conversionReviewVersions"), versions,
		"must include at least one of v1, v1beta1")
}

// conversionReview is apiextensions.k8s.io/v1 ConversionReview, and
// v1beta1's, which has the same fields.
type conversionReview struct {
	meta.TypeMeta `json:",inline"`
	Request       *conversionRequest  `json:"request,omitempty"`
	Response      *conversionResponse `json:"response,omitempty"`
}

type conversionRequest struct {
	UID               string            `json:"uid"`
	DesiredAPIVersion string            `json:"desiredAPIVersion"`
	Objects           []json.RawMessage `json:"objects"`
}

type conversionResponse struct {
	UID              string            `json:"uid"`
	ConvertedObjects []json.RawMessage `json:"convertedObjects"`
	Result           meta.Status       `json:"result"`
}

// convert sends one object to the webhook in a ConversionReview and
// takes back the converted one: it must have the apiVersion asked for
// and its metadata is kept as it was, but for labels and annotations,
// as kube-apiserver keeps it.
func (w *webhook) convert(obj *meta.Unstructured, toAPIVersion string) error {
	in, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	gvk := obj.APIVersion + ", Kind=" + obj.Kind // as kube names the object converted
	converted, err := w.send([]json.RawMessage{in}, toAPIVersion)
	if err != nil {
		return fmt.Errorf("conversion webhook for %s failed: %w", gvk, err)
	}
	if len(converted) != 1 {
		return fmt.Errorf("conversion webhook for %s returned %d objects, expected 1", gvk, len(converted))
	}
	var out meta.Unstructured
	if err := json.Unmarshal(converted[0], &out); err != nil {
		return fmt.Errorf("conversion webhook for %s failed: %w", gvk, err)
	}
	switch {
	case out.APIVersion != toAPIVersion:
		return fmt.Errorf("conversion webhook for %s returned invalid object at index 0: invalid groupVersion (expected %s, received %s)", gvk, toAPIVersion, out.APIVersion)
	case out.Kind != obj.Kind:
		return fmt.Errorf("conversion webhook for %s returned invalid object at index 0: invalid kind (expected %s, received %s)", gvk, obj.Kind, out.Kind)
	}
	obj.APIVersion, obj.Content = out.APIVersion, out.Content
	obj.Labels, obj.Annotations = out.Labels, out.Annotations
	return nil
}

// send POSTs one ConversionReview and returns the converted objects.
func (w *webhook) send(objects []json.RawMessage, toAPIVersion string) ([]json.RawMessage, error) {
	uid := newUID()
	body, err := json.Marshal(conversionReview{
		TypeMeta: meta.TypeMeta{APIVersion: "apiextensions.k8s.io/" + w.review, Kind: "ConversionReview"},
		Request:  &conversionRequest{UID: uid, DesiredAPIVersion: toAPIVersion, Objects: objects},
	})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := w.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, err
	}
	var review conversionReview
	if resp.StatusCode != http.StatusOK || json.Unmarshal(b, &review) != nil || review.Response == nil {
		return nil, fmt.Errorf("the webhook answered %d without a ConversionReview response", resp.StatusCode)
	}
	r := review.Response
	switch {
	case r.UID != uid && w.review == "v1": // v1beta1 answers are not checked, as kube does not
		return nil, fmt.Errorf("expected response uid %q, got %q", uid, r.UID)
	case r.Result.Status != meta.StatusSuccess:
		return nil, fmt.Errorf("conversion failed: %s", r.Result.Message)
	}
	return r.ConvertedObjects, nil
}

// newUID returns a random (version 4) UUID for a review.
func newUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
