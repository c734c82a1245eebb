package filters

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/kapi-dev/kapi/apiserver/requestinfo"
	"github.com/kapi-dev/kapi/audit"
	"github.com/kapi-dev/kapi/auth"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// openPath reports whether a path is served to everyone, authenticated
// or not: the health checks and /version.
func openPath(path string) bool {
	switch strings.TrimSuffix(path, "/") {
	case "/healthz", "/livez", "/readyz", "/version":
		return true
	}
	return false
}

// Guard runs the filters between reading a request and limiting it:
// authentication, impersonation, the audit record and authorization.
type Guard struct {
	// Authenticator identifies the user; nil: no authentication.
	Authenticator auth.Authenticator
	// Authorizer decides requests and impersonation; nil allows all.
	Authorizer auth.Authorizer
	// Audit records the requests its policy selects; nil: none.
	Audit *audit.Logger
	// Log receives why an authentication or authorization failed.
	Log *slog.Logger
	// WriteError answers a request the guard refuses.
	WriteError ErrorWriter
}

// ErrorWriter answers a request with err, a Status, in the encoding the
// request negotiated.
type ErrorWriter func(w http.ResponseWriter, r *http.Request, err error)

// Check runs the guard on a request. It returns the writer and request
// to serve (the request carrying its user), or a nil request when it
// answered the request itself (401, 403), and a function to call when
// the request is done. path is the request's, parsed.
func (s *Guard) Check(w *StatusRecorder, r *http.Request, path *requestinfo.Path) (http.ResponseWriter, *http.Request, func(panicked bool)) {
	open := openPath(r.URL.Path)
	requester, err := s.authenticate(r, open)
	user := requester
	if err == nil && requester != nil {
		user, err = auth.Impersonate(r.Context(), r.Header, requester, s.EffectiveAuthorizer())
	}
	attrs := requestinfo.Attributes(r, user, path)
	rec := s.startAudit(w, r, attrs, requester, user)
	out := http.ResponseWriter(w)
	if rec != nil {
		out = rec
		r = rec.wrapBody(r)
	}
	done := func(panicked bool) {
		if rec != nil {
			rec.finish(panicked)
		}
	}
	if err != nil {
		s.WriteError(out, r, err)
		return out, nil, done
	}
	if ctx := requestContext(r.Context(), user, rec); ctx != r.Context() {
		r = r.WithContext(ctx)
	}
	if !open && s.Authorizer != nil {
		if err := s.authorize(r, attrs); err != nil {
			s.WriteError(out, r, err)
			return out, nil, done
		}
	}
	return out, r, done
}

// requestContext adds the request's user and audit recorder, when there
// are, to its context: one copy of the request for both.
func requestContext(ctx context.Context, user *auth.User, rec *auditRecorder) context.Context {
	if user != nil {
		ctx = auth.WithUser(ctx, user)
	}
	if rec != nil {
		ctx = withAudit(ctx, rec)
	}
	return ctx
}

// authenticate returns the request's user: one the host's own middleware
// put on the context, else the authenticator's (nil without one). A
// request the authenticator rejects is a 401 Unauthorized Status; the
// reason is not given to the client, as kube-apiserver does not.
func (s *Guard) authenticate(r *http.Request, open bool) (*auth.User, error) {
	if u, ok := auth.UserFrom(r.Context()); ok {
		return u, nil
	}
	if s.Authenticator == nil {
		return nil, nil
	}
	u, ok, err := s.Authenticator.AuthenticateRequest(r)
	if (err != nil || !ok) && !open {
		if err != nil && !errors.Is(err, auth.ErrUnauthenticated) {
			s.Log.Debug("authentication failed", "path", r.URL.Path, "err", err)
		}
		return nil, status.Unauthorized("")
	}
	return u, nil
}

// EffectiveAuthorizer is the configured authorizer, or one allowing
// everything.
func (s *Guard) EffectiveAuthorizer() auth.Authorizer {
	if s.Authorizer == nil {
		return auth.AlwaysAllow{}
	}
	return s.Authorizer
}

// authorize asks the authorizer about a request: anything but allow is a
// 403 Forbidden Status worded as kube-apiserver words it.
func (s *Guard) authorize(r *http.Request, a auth.Attributes) error {
	d, reason, err := s.Authorizer.Authorize(r.Context(), a)
	if d == auth.DecisionAllow {
		return nil
	}
	if err != nil {
		s.Log.Error("authorization failed", "path", r.URL.Path, "err", err)
		return status.InternalError(err)
	}
	return auth.ForbiddenError(a, reason)
}

// startAudit begins the audit record of a request, or returns nil when
// the server keeps none or the policy records nothing of it.
func (s *Guard) startAudit(w *StatusRecorder, r *http.Request, a auth.Attributes, requester, user *auth.User) *auditRecorder {
	if s.Audit == nil {
		return nil
	}
	level, omit := s.Audit.LevelFor(a)
	if level == audit.LevelNone {
		return nil
	}
	return newAuditRecorder(w, r, s.Audit, level, omit, a, requester, user)
}

// unsafeDeleteVerb is the permission kube-apiserver requires, besides
// delete, of a delete with ignoreStoreReadErrorWithClusterBreakingPotential.
const unsafeDeleteVerb = "unsafe-delete-ignore-read-errors"

// AuthorizeUnsafeDelete checks that the request's user holds
// unsafe-delete-ignore-read-errors on the object; a denial is a 403 worded
// as kube-apiserver words it. Without an authorizer everything is allowed.
func (s *Guard) AuthorizeUnsafeDelete(r *http.Request) error {
	if s.Authorizer == nil {
		return nil
	}
	u, _ := auth.UserFrom(r.Context())
	a := requestinfo.AttributesOf(r, u)
	a.Verb = unsafeDeleteVerb
	d, reason, err := s.Authorizer.Authorize(r.Context(), a)
	gr := meta.GroupResource{Group: a.APIGroup, Resource: a.Resource}
	switch {
	case err != nil:
		return status.Forbidden(gr, a.Name, fmt.Errorf("error while checking permission for %q, %w", a.Verb, err))
	case d == auth.DecisionAllow:
		return nil
	}
	return status.Forbidden(gr, a.Name, fmt.Errorf("not permitted to do %q, reason: %s", a.Verb, reason))
}

// Handler serves h behind the guard, as kube-apiserver serves /metrics
// and /debug/pprof: a non-resource request whose verb is the lower-cased
// method and whose path the authorizer sees (RBAC's nonResourceURLs).
// Without an Authorizer everyone may reach h.
func (s *Guard) Handler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &StatusRecorder{ResponseWriter: w, Code: http.StatusOK}
		var path requestinfo.Path
		path.Parse(r)
		out, authed, done := s.Check(rec, r, &path)
		panicked := true
		defer func() { done(panicked) }()
		if authed != nil {
			h.ServeHTTP(out, authed)
		}
		panicked = false
	})
}
