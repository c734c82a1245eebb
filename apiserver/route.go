package apiserver

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime"
	"strings"
	"time"

	"github.com/kapi-dev/kapi/apiserver/filters"
	"github.com/kapi-dev/kapi/apiserver/internal/handlers"
	"github.com/kapi-dev/kapi/apiserver/internal/responsewriters"
	"github.com/kapi-dev/kapi/apiserver/requestinfo"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// errPanic is what a client is told of a panic serving its request.
var errPanic = errors.New("this request caused the server to panic; look in its logs for details")

// ServeHTTP is [Server.ServeHTTP].
func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.instrument.Serve(w, r) }

// serveHTTP serves a request, writing to o.Writer. o holds the request's
// record for the observer, which the filters fill in, and what was worked
// out of the request already.
func (s *server) serveHTTP(r *http.Request, o *filters.Served) {
	// The debug log's arguments, the clock read included, would cost
	// something on every request: only when it is on.
	debug := s.Log.Enabled(r.Context(), slog.LevelDebug)
	var start time.Time
	if debug {
		start = time.Now()
	}
	rec := &o.Writer
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			buf := make([]byte, 4096)
			buf = buf[:runtime.Stack(buf, false)]
			s.Log.Error("panic serving request", "method", r.Method, "path", r.URL.Path, "panic", p, "stack", string(buf))
			if !rec.Wrote {
				// The panic's value stays in the log: it may hold
				// anything the server knows.
				s.WriteError(rec, r, status.InternalError(errPanic))
			}
		}
		if debug {
			s.Log.Debug("request", "method", r.Method, "uri", filters.RequestURI(r), "code", rec.Code,
				"duration", time.Since(start), "userAgent", r.UserAgent())
		}
	}()
	docs := s.kinds.seal()
	if s.kinds.broken != nil {
		s.WriteError(rec, r, s.kinds.broken)
		return
	}
	out, authed, done := s.Guard.Check(rec, r, &o.Path)
	panicked := true
	defer func() { done(panicked) }()
	if authed != nil {
		s.limits.Serve(out, authed, o.Class, &o.Record, func(w http.ResponseWriter, r *http.Request) {
			if s.reviews.Serve(w, r) {
				return
			}
			if o.Class.Mutating {
				// Validation rules' warnings: only writes validate, and
				// the context costs a copy of the request.
				r = r.WithContext(responsewriters.WithWarnings(r.Context(), w))
			}
			s.route(w, r, docs, &o.Path)
		})
	}
	panicked = false
}

// route serves a request by its path, p.
func (s *server) route(w http.ResponseWriter, r *http.Request, docs *discoveryDocs, p *requestinfo.Path) {
	path := p.Escaped
	if s.serveHealth(w, r, path) {
		return
	}
	if getOnly(path) && r.Method != http.MethodGet {
		s.WriteError(w, r, status.MethodNotAllowedPath())
		return
	}
	switch path {
	case "/version":
		responsewriters.WriteJSON(w, http.StatusOK, s.opts.Version)
		return
	case "/api":
		docs.ServeAPI(w, r)
		return
	case "/apis":
		docs.ServeAPIs(w, r)
		return
	case "/openapi/v2":
		docs.ServeOpenAPIV2(w, r)
		return
	case "/openapi/v3":
		responsewriters.WriteRaw(w, http.StatusOK, "application/json", docs.OpenAPIIndex())
		return
	}
	if strings.HasPrefix(path, "/openapi/v3/") {
		docs.ServeOpenAPI(w, r, strings.TrimPrefix(path, "/openapi/v3/"))
		return
	}
	parts, ok := p.Parts, p.OK
	switch {
	case !ok:
		s.WriteError(w, r, status.NotFoundPath(""))
	case len(parts) >= 2 && parts[0] == "api":
		p.Resolved = s.serveGroupVersion(w, r, docs, "", parts[1], parts[2:])
	case len(parts) == 2 && parts[0] == "apis":
		if g, ok := docs.Group(parts[1]); ok {
			responsewriters.WriteJSON(w, http.StatusOK, g)
			return
		}
		s.WriteError(w, r, status.NotFoundPath(""))
	case len(parts) >= 3 && parts[0] == "apis":
		p.Resolved = s.serveGroupVersion(w, r, docs, parts[1], parts[2], parts[3:])
	default:
		s.WriteError(w, r, status.NotFoundPath(""))
	}
}

// getOnly reports whether path is a document kube-apiserver serves to
// GET alone, answering other methods (HEAD too) 405: the version and the
// core group's discovery.
func getOnly(path string) bool {
	return path == "/version" || path == "/api" || path == "/api/v1"
}

// serveGroupVersion serves /apis/G/V/... (or /api/V/...): the resource
// list, or a resource request; resolved reports the latter.
func (s *server) serveGroupVersion(w http.ResponseWriter, r *http.Request, docs *discoveryDocs, group, version string, rest []string) (resolved bool) {
	if len(rest) == 0 {
		if rl, ok := docs.ResourceList(meta.GroupVersion{Group: group, Version: version}); ok {
			responsewriters.WriteJSON(w, http.StatusOK, rl)
			return false
		}
		s.WriteError(w, r, status.NotFoundPath(""))
		return false
	}
	h, req, err := s.resolve(w, r, docs, group, version, rest)
	if err != nil {
		s.WriteError(w, r, err)
		return false
	}
	h.Serve(req)
	return true
}

// resolve turns the path below a group-version into a resource request
// and the handler of its resource.
func (s *server) resolve(w http.ResponseWriter, r *http.Request, docs *discoveryDocs, group, version string, rest []string) (*handlers.Handler, *handlers.Request, error) {
	req := &handlers.Request{Writer: w, Request: r}
	watchPrefix := false
	if rest[0] == "watch" { // the deprecated /watch/ path prefix
		watchPrefix = true
		rest = rest[1:]
	}
	if len(rest) >= 3 && rest[0] == "namespaces" && !namespaceSubresource(docs, group, version, rest) {
		req.Namespace = rest[1]
		if err := checkPathName("Namespace", req.Namespace); err != nil {
			return nil, nil, err
		}
		rest = rest[2:]
	}
	if len(rest) == 0 || len(rest) > 3 {
		return nil, nil, status.NotFoundPath("")
	}
	h := docs.lookup(group, version, rest[0])
	if h == nil {
		return nil, nil, status.NotFoundPath("")
	}
	res := h.Resource
	if len(rest) > 1 {
		req.Name = rest[1]
		if err := checkPathName("Name", req.Name); err != nil {
			return nil, nil, err
		}
	}
	if len(rest) > 2 {
		req.Subresource = rest[2]
		if !res.HasSubresource(req.Subresource) {
			return nil, nil, status.NotFoundPath("")
		}
	}
	if !res.Kind.Namespaced && req.Namespace != "" {
		return nil, nil, status.NotFoundPath("")
	}
	if res.Kind.Namespaced && req.Namespace == "" && req.Name != "" {
		return nil, nil, status.NotFoundPath("")
	}
	req.Verb = verbFor(r, req.Name != "", watchPrefix)
	if req.Verb == "" || !res.Allows(req.Verb, req.Subresource) {
		return nil, nil, status.MethodNotAllowed(res.Kind.GroupResource(), requestinfo.Action(r.Method, req.Name != ""))
	}
	return h, req, nil
}

// namespaceSubresource reports whether rest, below a group-version, is a
// subresource of a served namespaces resource (/api/v1/namespaces/x/status)
// rather than a collection in namespace x (/api/v1/namespaces/x/configmaps).
func namespaceSubresource(docs *discoveryDocs, group, version string, rest []string) bool {
	ns := docs.lookup(group, version, "namespaces")
	return ns != nil && len(rest) == 3 && ns.Resource.HasSubresource(rest[2])
}

func verbFor(r *http.Request, item, watchPrefix bool) string {
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		if watchPrefix || requestinfo.IsTrue(requestinfo.Query(r).Get("watch")) {
			return "watch"
		}
		if item {
			return "get"
		}
		return "list"
	case http.MethodPost:
		if !item && !watchPrefix {
			return "create"
		}
	case http.MethodPut:
		if item && !watchPrefix {
			return "update"
		}
	case http.MethodPatch:
		if item && !watchPrefix {
			return "patch"
		}
	case http.MethodDelete:
		if watchPrefix {
			return ""
		}
		if item {
			return "delete"
		}
		return "deletecollection"
	}
	return ""
}

// checkPathName is kube-apiserver's check of a name taken from a path: a
// name that could not be a path segment of its own is a 400.
func checkPathName(what, name string) error {
	var msgs []string
	if name == "." || name == ".." {
		msgs = append(msgs, fmt.Sprintf("may not be '%s'", name))
	}
	for _, c := range []string{"/", "%"} {
		if strings.Contains(name, c) {
			msgs = append(msgs, fmt.Sprintf("may not contain '%s'", c))
		}
	}
	if msgs == nil {
		return nil
	}
	return status.BadRequest(fmt.Sprintf("%s parameter invalid: %q: %s", what, name, strings.Join(msgs, ";")))
}

func defaultVersion() VersionInfo {
	return VersionInfo{
		Major: "1", Minor: "37", GitVersion: "v1.37.0-kapi", GitTreeState: "clean",
		BuildDate: "2026-01-01T00:00:00Z", GoVersion: runtime.Version(), Compiler: runtime.Compiler,
		Platform: runtime.GOOS + "/" + runtime.GOARCH,
	}
}
