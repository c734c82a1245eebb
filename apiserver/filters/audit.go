package filters

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"

	"github.com/kapi-dev/kapi/audit"
	"github.com/kapi-dev/kapi/auth"
	"github.com/kapi-dev/kapi/meta"
)

// maxAuditBody bounds the request and response bodies an audit record
// keeps; larger ones are left out of it.
const maxAuditBody = 1 << 20

// auditRecorder follows one request for its audit record: it sees the
// response code and, at the RequestResponse level, the body; a watch's
// record is written once when its response starts (ResponseStarted) and
// once when it ends.
type auditRecorder struct {
	http.ResponseWriter
	log  *audit.Logger
	omit []audit.Stage
	ev   audit.Event

	longRunning bool
	code        int
	wroteHeader bool
	request     *bytes.Buffer // the request body, Request level and up
	response    bytes.Buffer  // the response body, kept when wanted
	keepAll     bool          // keep the response body (RequestResponse)

	// annotationsMu guards ev.Annotations, which admission webhooks
	// called in parallel add to.
	annotationsMu sync.Mutex
}

func newAuditRecorder(w http.ResponseWriter, r *http.Request, log *audit.Logger, level audit.Level, omit []audit.Stage, a auth.Attributes, requester, user *auth.User) *auditRecorder {
	id := r.Header.Get("Audit-ID")
	if id == "" {
		id = audit.NewID()
	}
	w.Header().Set("Audit-Id", id)
	rec := &auditRecorder{
		ResponseWriter: w, log: log, omit: omit, code: http.StatusOK,
		longRunning: a.Verb == "watch",
		keepAll:     level.AtLeast(audit.LevelRequestResponse) && a.Verb != "watch",
	}
	ev := &rec.ev
	ev.Level, ev.AuditID, ev.RequestURI, ev.Verb = level, id, RequestURI(r), a.Verb
	ev.User = audit.UserInfoOf(requester)
	if user != requester && user != nil {
		u := audit.UserInfoOf(user)
		ev.ImpersonatedUser = &u
	}
	ev.SourceIPs = sourceIPs(r)
	ev.UserAgent = r.UserAgent()
	ev.RequestReceivedTimestamp = meta.NowMicro()
	if a.ResourceRequest {
		ev.ObjectRef = &audit.ObjectRef{
			Resource: a.Resource, Namespace: a.Namespace, Name: a.Name,
			APIGroup: a.APIGroup, APIVersion: a.APIVersion, Subresource: a.Subresource,
		}
	}
	if level.AtLeast(audit.LevelRequest) {
		rec.request = &bytes.Buffer{}
	}
	return rec
}

// auditKey is the context key of a request's auditRecorder.
type auditKey struct{}

// withAudit puts the request's recorder on its context, for the verbs
// that complete its objectRef once they have decoded the body.
func withAudit(ctx context.Context, rec *auditRecorder) context.Context {
	return context.WithValue(ctx, auditKey{}, rec)
}

// AuditObject completes the objectRef of the request's audit record from
// the metadata of the object its body carries, as kube-apiserver does
// when a create or update has decoded its body (whatever the level): the
// namespace and name the URL did not give (a create's name), and the uid
// and resourceVersion the body states. A request without a record is
// left alone.
func AuditObject(ctx context.Context, m *meta.ObjectMeta) {
	rec, _ := ctx.Value(auditKey{}).(*auditRecorder)
	if rec == nil || m == nil {
		return
	}
	ref := rec.ev.ObjectRef
	if ref == nil {
		ref = &audit.ObjectRef{}
		rec.ev.ObjectRef = ref
	}
	fill := func(dst *string, v string) {
		if *dst == "" {
			*dst = v
		}
	}
	fill(&ref.Namespace, m.Namespace)
	fill(&ref.Name, m.Name)
	fill(&ref.UID, m.UID)
	fill(&ref.ResourceVersion, m.ResourceVersion)
}

// AuditAnnotation adds key=value to the annotations of the request's
// audit record, as kube-apiserver records what admission webhooks and
// policies annotate; a key already set keeps its first value. A request
// without a record is left alone. Safe for concurrent use.
func AuditAnnotation(ctx context.Context, key, value string) {
	rec, _ := ctx.Value(auditKey{}).(*auditRecorder)
	if rec == nil {
		return
	}
	rec.annotationsMu.Lock()
	defer rec.annotationsMu.Unlock()
	if _, ok := rec.ev.Annotations[key]; ok {
		return
	}
	if rec.ev.Annotations == nil {
		rec.ev.Annotations = map[string]string{}
	}
	rec.ev.Annotations[key] = value
}

// sourceIPs lists X-Forwarded-For, X-Real-Ip and the peer address, as
// kube-apiserver records them.
func sourceIPs(r *http.Request) []string {
	var out []string
	for _, ip := range strings.Split(r.Header.Get("X-Forwarded-For"), ",") {
		if ip = strings.TrimSpace(ip); net.ParseIP(ip) != nil {
			out = append(out, ip)
		}
	}
	if ip := strings.TrimSpace(r.Header.Get("X-Real-Ip")); net.ParseIP(ip) != nil {
		out = append(out, ip)
	}
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		out = append(out, host)
	}
	return out
}

// wrapBody makes the request body copy what is read of it into the
// record, at the Request level and up.
func (a *auditRecorder) wrapBody(r *http.Request) *http.Request {
	if a.request == nil || r.Body == nil || r.Body == http.NoBody {
		return r
	}
	r2 := *r
	r2.Body = &teeBody{ReadCloser: r.Body, buf: a.request}
	return &r2
}

type teeBody struct {
	io.ReadCloser
	buf *bytes.Buffer
}

func (t *teeBody) Read(p []byte) (int, error) {
	n, err := t.ReadCloser.Read(p)
	if t.buf.Len()+n <= maxAuditBody {
		t.buf.Write(p[:n])
	}
	return n, err
}

func (a *auditRecorder) WriteHeader(code int) {
	if !a.wroteHeader {
		a.wroteHeader, a.code = true, code
		if a.longRunning {
			ev := a.ev
			ev.Stage, ev.StageTimestamp = audit.StageResponseStarted, meta.NowMicro()
			ev.ResponseStatus = &meta.Status{Code: int32(code)}
			a.log.Log(&ev, a.omit)
		}
	}
	a.ResponseWriter.WriteHeader(code)
}

func (a *auditRecorder) Write(b []byte) (int, error) {
	if !a.wroteHeader {
		a.WriteHeader(http.StatusOK)
	}
	if (a.keepAll || a.code >= 400) && !a.longRunning && a.response.Len()+len(b) <= maxAuditBody {
		a.response.Write(b)
	}
	return a.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach Flush and deadlines.
func (a *auditRecorder) Unwrap() http.ResponseWriter { return a.ResponseWriter }

// finish writes the ResponseComplete (or Panic) record.
func (a *auditRecorder) finish(panicked bool) {
	a.annotationsMu.Lock()
	defer a.annotationsMu.Unlock()
	ev := &a.ev
	ev.Stage, ev.StageTimestamp = audit.StageResponseComplete, meta.NowMicro()
	code := a.code
	if panicked {
		ev.Stage, code = audit.StagePanic, http.StatusInternalServerError
	}
	ev.ResponseStatus = &meta.Status{Code: int32(code)}
	body := a.response.Bytes()
	if code >= 400 {
		var st meta.Status
		if json.Unmarshal(body, &st) == nil && st.Kind == "Status" {
			ev.ResponseStatus = &meta.Status{Status: st.Status, Message: st.Message, Reason: st.Reason, Details: st.Details, Code: st.Code}
		}
	}
	if a.request != nil && json.Valid(a.request.Bytes()) {
		ev.RequestObject = bytes.Clone(a.request.Bytes())
	}
	if a.keepAll && json.Valid(body) {
		ev.ResponseObject = bytes.Clone(body)
	}
	a.log.Log(ev, a.omit)
}

// RequestURI is the URI the client sent: a host that mounts the server
// under http.StripPrefix keeps it in RequestURI while the URL loses the
// prefix. Requests built in process carry only the URL.
func RequestURI(r *http.Request) string {
	if r.RequestURI != "" {
		return r.RequestURI
	}
	return r.URL.RequestURI()
}
