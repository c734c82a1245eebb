package admission

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"time"

	"github.com/kapi-dev/kapi/auth"
	arv1 "github.com/kapi-dev/kapi/kinds/admissionregistrationv1"
)

// TypeCheckingManager is the field manager kube's type checking
// controller applies policies' status with.
const TypeCheckingManager = "validatingadmissionpolicy-status-controller"

// TypeCheckingSource is what the type checking pass reads: the policies
// from the watch cache, the served kinds and their schemas (a
// *apiserver.Server).
type TypeCheckingSource interface {
	Source
	SchemaSource
}

// SyncTypeChecking is one pass of kube's type checking controller: each
// ValidatingAdmissionPolicy whose generation is ahead of its
// status.observedGeneration gets status.typeChecking (see
// [Compiler.TypeCheck]) and observedGeneration, applied to its status
// subresource through h (the server's handler, as a client would, with
// the controller's field manager, forced). A host runs it whenever the
// policies change, e.g. when the cache's revision moves.
func (c *Compiler) SyncTypeChecking(ctx context.Context, h http.Handler, src TypeCheckingSource) error {
	cache, ok := src.Cached(groupName, "validatingadmissionpolicies")
	if !ok {
		return nil
	}
	if err := cache.Sync(ctx); err != nil {
		return err
	}
	objs, _, err := cache.List(ctx)
	if err != nil {
		return err
	}
	for _, o := range objs {
		p, ok := o.(*arv1.ValidatingAdmissionPolicy)
		if !ok || p.Generation <= p.Status.ObservedGeneration {
			continue
		}
		if err := applyTypeChecking(ctx, h, p, c.TypeCheck(p, src)); err != nil {
			return err
		}
	}
	return nil
}

// typeCheckingApply is the apply configuration the controller sends.
type typeCheckingApply struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Status struct {
		ObservedGeneration int64 `json:"observedGeneration"`
		TypeChecking       struct {
			ExpressionWarnings []arv1.ExpressionWarning `json:"expressionWarnings,omitempty"`
		} `json:"typeChecking"`
	} `json:"status"`
}

func applyTypeChecking(ctx context.Context, h http.Handler, p *arv1.ValidatingAdmissionPolicy, warnings []arv1.ExpressionWarning) error {
	var body typeCheckingApply
	body.APIVersion, body.Kind = groupName+"/v1", "ValidatingAdmissionPolicy"
	body.Metadata.Name = p.Name
	body.Status.ObservedGeneration = p.Generation
	body.Status.TypeChecking.ExpressionWarnings = warnings
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	q := url.Values{"fieldManager": {TypeCheckingManager}, "force": {"true"}}
	target := "/apis/" + groupName + "/v1/validatingadmissionpolicies/" + url.PathEscape(p.Name) + "/status?" + q.Encode()
	// The controller acts as the server itself, which authorizers allow
	// everything.
	user := auth.User{Name: "system:apiserver", Groups: []string{auth.SystemPrivilegedGroup, "system:authenticated"}}
	req, err := http.NewRequestWithContext(auth.WithUser(ctx, &user), http.MethodPatch, "http://in-process"+target, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Content-Type", "application/apply-patch+yaml")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code >= 300 {
		msg, _ := io.ReadAll(rec.Body)
		return fmt.Errorf("applying the type checking of %s: %d %s", p.Name, rec.Code, msg)
	}
	return nil
}

// TypeCheckingServer is a server the type checking runs against: its
// handler takes the status writes, its caches and schemas are read.
type TypeCheckingServer interface {
	http.Handler
	TypeCheckingSource
}

// RunTypeChecking keeps the status.typeChecking of a server's
// ValidatingAdmissionPolicies up to date until ctx is done, as kube's
// type checking controller does: a pass (SyncTypeChecking) every
// interval, which reads the watch cache and writes only the status of
// policies changed since. report gets the errors of a pass (nil: none).
func (c *Compiler) RunTypeChecking(ctx context.Context, srv TypeCheckingServer, interval time.Duration, report func(error)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if err := c.SyncTypeChecking(ctx, srv, srv); err != nil && ctx.Err() == nil && report != nil {
			report(err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
