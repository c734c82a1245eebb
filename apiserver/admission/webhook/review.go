package webhook

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/kapi-dev/kapi/apiserver/admission"
	"github.com/kapi-dev/kapi/apiserver/admission/match"
	"github.com/kapi-dev/kapi/meta"
)

// The wire form of admission.k8s.io AdmissionReview, v1 and v1beta1
// (the same fields; v1beta1 only has looser response rules).

type review struct {
	APIVersion string          `json:"apiVersion,omitempty"`
	Kind       string          `json:"kind,omitempty"`
	Request    *reviewRequest  `json:"request,omitempty"`
	Response   *reviewResponse `json:"response,omitempty"`
}

type gvk struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

type gvr struct {
	Group    string `json:"group"`
	Version  string `json:"version"`
	Resource string `json:"resource"`
}

type userInfo struct {
	Username string              `json:"username,omitempty"`
	UID      string              `json:"uid,omitempty"`
	Groups   []string            `json:"groups,omitempty"`
	Extra    map[string][]string `json:"extra,omitempty"`
}

type reviewRequest struct {
	UID                string          `json:"uid"`
	Kind               gvk             `json:"kind"`
	Resource           gvr             `json:"resource"`
	SubResource        string          `json:"subResource,omitempty"`
	RequestKind        *gvk            `json:"requestKind,omitempty"`
	RequestResource    *gvr            `json:"requestResource,omitempty"`
	RequestSubResource string          `json:"requestSubResource,omitempty"`
	Name               string          `json:"name,omitempty"`
	Namespace          string          `json:"namespace,omitempty"`
	Operation          string          `json:"operation"`
	UserInfo           userInfo        `json:"userInfo"`
	Object             json.RawMessage `json:"object"`
	OldObject          json.RawMessage `json:"oldObject"`
	DryRun             *bool           `json:"dryRun,omitempty"`
	Options            json.RawMessage `json:"options"`
}

type reviewResponse struct {
	UID              string            `json:"uid"`
	Allowed          bool              `json:"allowed"`
	Result           *meta.Status      `json:"status,omitempty"`
	Patch            []byte            `json:"patch,omitempty"`
	PatchType        *string           `json:"patchType,omitempty"`
	AuditAnnotations map[string]string `json:"auditAnnotations,omitempty"`
	Warnings         []string          `json:"warnings,omitempty"`
}

const (
	reviewGroup      = "admission.k8s.io"
	patchTypeJSON    = "JSONPatch"
	reviewKind       = "AdmissionReview"
	errNoKnownReview = "webhook does not accept known AdmissionReview versions (v1, v1beta1)"
)

// reviewVersion is the first version in the webhook's list that kapi
// speaks, as kube picks.
func reviewVersion(versions []string) (string, error) {
	for _, v := range versions {
		if v == "v1" || v == "v1beta1" {
			return v, nil
		}
	}
	return "", errors.New(errNoKnownReview)
}

// newUID is a fresh uid: kube gives every call of a webhook its own.
func newUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// versioned is a write's object and old object in the version a webhook
// sees them, encoded once.
type versioned struct {
	version      string
	obj, old     meta.Object
	objJS, oldJS json.RawMessage
}

func encodeObject(o meta.Object) (json.RawMessage, error) {
	if o == nil {
		return json.RawMessage("null"), nil
	}
	return json.Marshal(o)
}

// newRequest fills the AdmissionRequest kube sends for a, matched as m,
// with the objects in v.
func newRequest(uid string, a *admission.Request, m match.Result, v *versioned) (*reviewRequest, error) {
	opts := json.RawMessage("null")
	if a.Options != nil {
		b, err := json.Marshal(a.Options)
		if err != nil {
			return nil, err
		}
		opts = b
	}
	dry := a.DryRun
	r := &reviewRequest{
		UID:                uid,
		Kind:               gvk{m.Kind.Group, m.Kind.Version, m.Kind.Kind},
		Resource:           gvr{m.Resource.Group, m.Resource.Version, m.Resource.Resource},
		SubResource:        m.Subresource,
		RequestKind:        &gvk{a.Kind.Group, a.Kind.Version, a.Kind.Kind},
		RequestResource:    &gvr{a.Resource.Group, a.Kind.Version, a.Resource.Resource},
		RequestSubResource: a.Subresource,
		Name:               a.Name,
		Namespace:          a.Namespace,
		Operation:          string(a.Operation),
		Object:             v.objJS,
		OldObject:          v.oldJS,
		DryRun:             &dry,
		Options:            opts,
	}
	if u := a.User; u != nil {
		r.UserInfo = userInfo{Username: u.Name, UID: u.UID, Groups: u.Groups, Extra: u.Extra}
	}
	return r, nil
}

// encodeReview is the body sent to a webhook speaking version.
func encodeReview(version string, r *reviewRequest) ([]byte, error) {
	return json.Marshal(&review{APIVersion: reviewGroup + "/" + version, Kind: reviewKind, Request: r})
}

// verifiedResponse is what kube keeps of a webhook's answer.
type verifiedResponse struct {
	allowed          bool
	result           *meta.Status
	patch            []byte
	patchType        string
	auditAnnotations map[string]string
	warnings         []string
}

// verifyResponse checks a decoded answer as kube's
// VerifyAdmissionResponse does, with kube's messages.
func verifyResponse(version, uid string, mutating bool, rv *review) (*verifiedResponse, error) {
	r := rv.Response
	if r == nil {
		return nil, errors.New("webhook response was absent")
	}
	out := &verifiedResponse{allowed: r.Allowed, result: r.Result, auditAnnotations: r.AuditAnnotations, warnings: r.Warnings}
	if version == "v1beta1" {
		if mutating && len(r.Patch) > 0 {
			out.patch, out.patchType = r.Patch, patchTypeJSON
		}
		return out, nil
	}
	if r.UID != uid {
		return nil, fmt.Errorf("expected response.uid=%q, got %q", uid, r.UID)
	}
	if want := reviewGroup + "/v1"; rv.APIVersion != want || rv.Kind != reviewKind {
		return nil, fmt.Errorf("expected webhook response of %s, Kind=%s, got %s", want, reviewKind, gvkString(rv.APIVersion, rv.Kind))
	}
	if !mutating {
		if len(r.Patch) > 0 {
			return nil, errors.New("validating webhook may not return response.patch")
		}
		if r.PatchType != nil {
			return nil, errors.New("validating webhook may not return response.patchType")
		}
		return out, nil
	}
	switch {
	case len(r.Patch) > 0 && r.PatchType == nil:
		return nil, errors.New("webhook returned response.patch but not response.patchType")
	case len(r.Patch) == 0 && r.PatchType != nil:
		return nil, errors.New("webhook returned response.patchType but not response.patch")
	case r.PatchType != nil && *r.PatchType == "":
		return nil, fmt.Errorf("webhook returned invalid response.patchType of %q", "")
	}
	out.patch = r.Patch
	if r.PatchType != nil {
		out.patchType = *r.PatchType
	}
	return out, nil
}

// gvkString renders apiVersion and kind as schema.GroupVersionKind's
// String does: "group/version, Kind=kind".
func gvkString(apiVersion, kind string) string {
	gv := meta.GroupVersion{Version: apiVersion}
	for i := 0; i < len(apiVersion); i++ {
		if apiVersion[i] == '/' {
			gv = meta.GroupVersion{Group: apiVersion[:i], Version: apiVersion[i+1:]}
			break
		}
	}
	return gv.Group + "/" + gv.Version + ", Kind=" + kind
}
