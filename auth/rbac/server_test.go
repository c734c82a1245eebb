package rbac_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/audit"
	"github.com/kapi-dev/kapi/auth"
	"github.com/kapi-dev/kapi/auth/rbac"
	"github.com/kapi-dev/kapi/meta"
)

type thing struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            struct {
		N int32 `json:"n"`
	} `json:"spec,omitempty"` // optional: the tests create things without a spec
}

func thingKind() apiserver.Kind {
	return apiserver.Kind{Group: "example.com", Version: "v1", Kind: "Thing", Resource: "things", Namespaced: true,
		New: func() meta.Object { return &thing{} }}
}

const tokens = `admin-token,admin,1,system:masters
alice-token,alice,2
bob-token,bob,3,"dev,qa"
prom-token,prometheus,4,system:monitoring
`

// testServer is a server authenticating by token and authorizing with
// RBAC, its audit log in a buffer.
type testServer struct {
	t     *testing.T
	h     http.Handler
	audit *bytes.Buffer
}

func newTestServer(t *testing.T, anonymous bool) *testServer {
	t.Helper()
	tf, err := auth.ParseTokenFile(strings.NewReader(tokens))
	if err != nil {
		t.Fatal(err)
	}
	authz := rbac.New()
	var log bytes.Buffer
	srv := apiserver.New(apiserver.Options{
		Authenticator:       auth.Chain{Authenticators: []auth.Authenticator{auth.BearerToken{Tokens: tf}}, Anonymous: anonymous},
		Authorizer:          auth.Authorizers{auth.PrivilegedGroups{auth.SystemPrivilegedGroup}, authz},
		ValidatingAdmission: []apiserver.AdmissionFunc{authz.Admit},
		Audit:               audit.NewLogger(&log, nil),
	})
	t.Cleanup(srv.Close)
	srv.Register(thingKind())
	if err := authz.Register(srv); err != nil {
		t.Fatal(err)
	}
	objs := append(rbac.BootstrapPolicy(), rbac.AggregatedRoles("things", "example.com", "things")...)
	if err := rbac.Bootstrap(context.Background(), srv, objs...); err != nil {
		t.Fatal(err)
	}
	return &testServer{t: t, h: srv, audit: &log}
}

// do sends a request with the token (none if empty) and returns the code
// and body.
func (s *testServer) do(token, method, path, body string, hdr ...string) (int, string) {
	s.t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	s.h.ServeHTTP(rec, req)
	b, _ := io.ReadAll(rec.Body)
	return rec.Code, string(b)
}

func (s *testServer) expect(token, method, path, body string, want int, hdr ...string) string {
	s.t.Helper()
	code, out := s.do(token, method, path, body, hdr...)
	if code != want {
		s.t.Fatalf("%s %s as %q: %d, want %d: %s", method, path, token, code, want, out)
	}
	return out
}

// healthy waits for /healthz to answer 200 (it fails until every cache
// has synced), which it must whoever asks.
func (s *testServer) healthy(token string) {
	s.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, body := s.do(token, "GET", "/healthz", "")
		if code == http.StatusOK {
			return
		}
		if code == http.StatusUnauthorized || code == http.StatusForbidden || time.Now().After(deadline) {
			s.t.Fatalf("/healthz as %q: %d %s", token, code, body)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func message(t *testing.T, body string) string {
	t.Helper()
	var st meta.Status
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		t.Fatalf("not a Status: %s", body)
	}
	return st.Message
}

const things = "/apis/example.com/v1/namespaces/%s/things"

func nsPath(ns string) string { return strings.Replace(things, "%s", ns, 1) }

const rolebindingAliceEdit = `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"alice-edit"},
 "subjects":[{"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":"alice"}],
 "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"edit"}}`

func TestEditInOneNamespace(t *testing.T) {
	s := newTestServer(t, false)
	s.expect("admin-token", "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/ns1/rolebindings", rolebindingAliceEdit, http.StatusCreated)
	s.expect("alice-token", "POST", nsPath("ns1"), `{"metadata":{"name":"t1"}}`, http.StatusCreated)
	s.expect("alice-token", "GET", nsPath("ns1"), "", http.StatusOK)
	s.expect("alice-token", "GET", nsPath("ns1")+"/t1", "", http.StatusOK)

	tests := []struct{ name, method, path, body, msg string }{
		{"create in ns2", "POST", nsPath("ns2"), `{"metadata":{"name":"t1"}}`,
			`things.example.com is forbidden: User "alice" cannot create resource "things" in API group "example.com" in the namespace "ns2"`},
		{"get in ns2", "GET", nsPath("ns2") + "/t1", "",
			`things.example.com "t1" is forbidden: User "alice" cannot get resource "things" in API group "example.com" in the namespace "ns2"`},
		{"list all namespaces", "GET", "/apis/example.com/v1/things", "",
			`things.example.com is forbidden: User "alice" cannot list resource "things" in API group "example.com" at the cluster scope`},
		{"watch all namespaces", "GET", "/apis/example.com/v1/things?watch=true", "",
			`things.example.com is forbidden: User "alice" cannot watch resource "things" in API group "example.com" at the cluster scope`},
		{"dry-run create in ns2", "POST", nsPath("ns2") + "?dryRun=All", `{"metadata":{"name":"t1"}}`,
			`things.example.com is forbidden: User "alice" cannot create resource "things" in API group "example.com" in the namespace "ns2"`},
		{"bind cluster-admin", "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/ns1/rolebindings",
			strings.Replace(rolebindingAliceEdit, `"edit"`, `"cluster-admin"`, 1),
			`rolebindings.rbac.authorization.k8s.io is forbidden: User "alice" cannot create resource "rolebindings" in API group "rbac.authorization.k8s.io" in the namespace "ns1"`},
		{"metrics path", "GET", "/metrics", "", `forbidden: User "alice" cannot get path "/metrics"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := s.expect("alice-token", tc.method, tc.path, tc.body, http.StatusForbidden)
			if got := message(t, out); got != tc.msg {
				t.Errorf("message\n got %s\nwant %s", got, tc.msg)
			}
		})
	}
	// Discovery, OpenAPI and health are open to her.
	for _, p := range []string{"/apis", "/api", "/openapi/v3", "/version", "/apis/example.com/v1"} {
		s.expect("alice-token", "GET", p, "", http.StatusOK)
	}
	s.healthy("alice-token")
	// bob is bound to nothing.
	s.expect("bob-token", "GET", nsPath("ns1"), "", http.StatusForbidden)
}

func TestAuthentication(t *testing.T) {
	s := newTestServer(t, false)
	if out := s.expect("", "GET", nsPath("ns1"), "", http.StatusUnauthorized); message(t, out) != "Unauthorized" {
		t.Errorf("401 body: %s", out)
	}
	s.expect("wrong", "GET", nsPath("ns1"), "", http.StatusUnauthorized)
	s.healthy("")
	s.expect("", "GET", "/version", "", http.StatusOK)

	a := newTestServer(t, true)
	out := a.expect("", "GET", nsPath("ns1"), "", http.StatusForbidden)
	if !strings.Contains(out, `User \"system:anonymous\" cannot list`) {
		t.Errorf("anonymous: %s", out)
	}
	// A presented but invalid credential is never anonymous.
	a.expect("wrong", "GET", nsPath("ns1"), "", http.StatusUnauthorized)
}

// TestHealthAccess: as with kube-apiserver's default roles, everyone may
// read /healthz, /livez, /readyz and /version, while the per-check paths
// (/readyz/etcd) and /metrics are for the system:monitoring group.
func TestHealthAccess(t *testing.T) {
	s := newTestServer(t, true)
	s.healthy("")
	forbidden := func(user, path string) string {
		return fmt.Sprintf(`forbidden: User %q cannot get path %q`, user, path)
	}
	tests := []struct {
		token, path string
		code        int
		msg         string // of a 403
	}{
		{"", "/readyz", http.StatusOK, ""},
		{"", "/livez", http.StatusOK, ""},
		{"", "/healthz", http.StatusOK, ""},
		{"", "/version", http.StatusOK, ""},
		{"", "/readyz/etcd", http.StatusForbidden, forbidden("system:anonymous", "/readyz/etcd")},
		{"", "/livez/ping", http.StatusForbidden, forbidden("system:anonymous", "/livez/ping")},
		{"", "/healthz/ping", http.StatusForbidden, forbidden("system:anonymous", "/healthz/ping")},
		{"alice-token", "/readyz/etcd", http.StatusForbidden, forbidden("alice", "/readyz/etcd")},
		{"alice-token", "/metrics", http.StatusForbidden, forbidden("alice", "/metrics")},
		{"prom-token", "/readyz/etcd", http.StatusOK, ""},
		{"prom-token", "/readyz/informer-sync", http.StatusOK, ""},
		{"prom-token", "/livez/ping", http.StatusOK, ""},
		{"prom-token", "/healthz/ping", http.StatusOK, ""},
		{"prom-token", "/readyz?verbose", http.StatusOK, ""},
		// Allowed, and not served by this server.
		{"prom-token", "/metrics", http.StatusNotFound, ""},
		{"prom-token", "/version/x", http.StatusForbidden, forbidden("prometheus", "/version/x")},
	}
	for _, tc := range tests {
		t.Run(tc.token+tc.path, func(t *testing.T) {
			out := s.expect(tc.token, "GET", tc.path, "", tc.code)
			if tc.code == http.StatusForbidden {
				if got := message(t, out); got != tc.msg {
					t.Errorf("message\n got %s\nwant %s", got, tc.msg)
				}
			}
		})
	}
}

func TestEscalation(t *testing.T) {
	s := newTestServer(t, false)
	adminBinding := strings.Replace(rolebindingAliceEdit, `"edit"`, `"admin"`, 1)
	s.expect("admin-token", "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/ns1/rolebindings", adminBinding, http.StatusCreated)
	rbs := "/apis/rbac.authorization.k8s.io/v1/namespaces/ns1/rolebindings"
	// alice may manage bindings in ns1, but not to a role granting more
	// than she holds.
	toBob := func(role string) string {
		return `{"metadata":{"name":"bob-` + role + `"},"subjects":[{"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":"bob"}],
		"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"` + role + `"}}`
	}
	s.expect("alice-token", "POST", rbs, toBob("view"), http.StatusCreated)
	out := s.expect("alice-token", "POST", rbs, toBob("cluster-admin"), http.StatusForbidden)
	want := `rolebindings.rbac.authorization.k8s.io "bob-cluster-admin" is forbidden: user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:` +
		"\n" + `{APIGroups:["*"], Resources:["*"], Verbs:["*"]}` + "\n" + `{NonResourceURLs:["*"], Verbs:["*"]}`
	if got := message(t, out); got != want {
		t.Errorf("message\n got %q\nwant %q", got, want)
	}
	roles := "/apis/rbac.authorization.k8s.io/v1/namespaces/ns1/roles"
	s.expect("alice-token", "POST", roles, `{"metadata":{"name":"reader"},"rules":[{"verbs":["get"],"apiGroups":["example.com"],"resources":["things"]}]}`, http.StatusCreated)
	out = s.expect("alice-token", "POST", roles, `{"metadata":{"name":"lease-writer"},"rules":[{"verbs":["get","update"],"apiGroups":["coordination.k8s.io"],"resources":["leases"]}]}`, http.StatusForbidden)
	if !strings.Contains(message(t, out), `{APIGroups:["coordination.k8s.io"], Resources:["leases"], Verbs:["get" "update"]}`) {
		t.Errorf("role escalation: %s", out)
	}
	// Binding a role she holds is fine; with bind on it she may bind
	// roles she does not hold.
	s.expect("alice-token", "POST", rbs, strings.Replace(toBob("reader"), `"ClusterRole"`, `"Role"`, 1), http.StatusCreated)
	s.expect("admin-token", "POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles",
		`{"metadata":{"name":"binder"},"rules":[{"verbs":["bind"],"apiGroups":["rbac.authorization.k8s.io"],"resources":["clusterroles"],"resourceNames":["cluster-admin"]}]}`, http.StatusCreated)
	s.expect("admin-token", "POST", rbs, strings.Replace(strings.Replace(rolebindingAliceEdit, `"edit"`, `"binder"`, 1), "alice-edit", "alice-binder", 1), http.StatusCreated)
	s.expect("alice-token", "POST", rbs, toBob("cluster-admin"), http.StatusCreated)
	// roleRef is immutable.
	out = s.expect("admin-token", "PATCH", rbs+"/bob-view", `{"roleRef":{"name":"edit"}}`, http.StatusUnprocessableEntity,
		"Content-Type", "application/merge-patch+json")
	if !strings.Contains(out, "cannot change roleRef") {
		t.Errorf("roleRef change: %s", out)
	}
}

func TestReviews(t *testing.T) {
	s := newTestServer(t, false)
	s.expect("admin-token", "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/ns1/rolebindings", rolebindingAliceEdit, http.StatusCreated)
	ssar := func(ns, verb string) string {
		return `{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","spec":{"resourceAttributes":{"namespace":"` + ns +
			`","verb":"` + verb + `","group":"example.com","resource":"things"}}}`
	}
	for _, tc := range []struct {
		ns, verb string
		allowed  bool
	}{{"ns1", "create", true}, {"ns1", "delete", true}, {"ns2", "create", false}, {"", "list", false}} {
		out := s.expect("alice-token", "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", ssar(tc.ns, tc.verb), http.StatusCreated)
		var got struct {
			Kind   string `json:"kind"`
			Status struct {
				Allowed bool `json:"allowed"`
			} `json:"status"`
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil || got.Kind != "SelfSubjectAccessReview" || got.Status.Allowed != tc.allowed {
			t.Errorf("can alice %s things in %q: %s, want allowed=%v", tc.verb, tc.ns, out, tc.allowed)
		}
	}
	out := s.expect("alice-token", "POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
		`{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectRulesReview","spec":{"namespace":"ns1"}}`, http.StatusCreated)
	for _, want := range []string{`"resources":["things"]`, `"verbs":["create","delete","deletecollection","patch","update"]`, `"nonResourceURLs":["/api","/api/*"`, `"selfsubjectaccessreviews"`} {
		if !strings.Contains(out, want) {
			t.Errorf("rules review lacks %s: %s", want, out)
		}
	}
	out = s.expect("bob-token", "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
		`{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`, http.StatusCreated)
	if want := `"userInfo":{"username":"bob","uid":"3","groups":["dev","qa","system:authenticated"]}`; !strings.Contains(out, want) {
		t.Errorf("whoami: %s, want %s", out, want)
	}
	s.expect("", "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", `{}`, http.StatusUnauthorized)
	s.expect("bob-token", "GET", "/apis/authentication.k8s.io/v1/selfsubjectreviews", ``, http.StatusForbidden)
	s.expect("bob-token", "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", `{"kind":`, http.StatusBadRequest)
}

func TestImpersonation(t *testing.T) {
	s := newTestServer(t, false)
	s.expect("admin-token", "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/ns1/rolebindings", rolebindingAliceEdit, http.StatusCreated)
	// The admin acting as alice is alice.
	s.expect("admin-token", "POST", nsPath("ns1"), `{"metadata":{"name":"t1"}}`, http.StatusCreated, "Impersonate-User", "alice")
	out := s.expect("admin-token", "GET", nsPath("ns2"), "", http.StatusForbidden, "Impersonate-User", "alice")
	if !strings.Contains(out, `User \"alice\" cannot list`) {
		t.Errorf("as alice: %s", out)
	}
	out = s.expect("admin-token", "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", `{}`, http.StatusCreated,
		"Impersonate-User", "alice", "Impersonate-Group", "dev")
	if !strings.Contains(out, `"username":"alice","groups":["dev","system:authenticated"]`) {
		t.Errorf("whoami as alice: %s", out)
	}
	// alice may not impersonate.
	out = s.expect("alice-token", "GET", nsPath("ns1"), "", http.StatusForbidden, "Impersonate-User", "admin")
	if got, want := message(t, out), `users "admin" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope`; got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	s.expect("admin-token", "GET", nsPath("ns1"), "", http.StatusBadRequest, "Impersonate-Group", "dev")
	// A role allowing to impersonate one group only.
	s.expect("admin-token", "POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles",
		`{"metadata":{"name":"as-dev"},"rules":[{"verbs":["impersonate"],"apiGroups":[""],"resources":["users"],"resourceNames":["carol"]},{"verbs":["impersonate"],"apiGroups":[""],"resources":["groups"],"resourceNames":["dev"]}]}`, http.StatusCreated)
	s.expect("admin-token", "POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
		`{"metadata":{"name":"bob-as-dev"},"subjects":[{"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":"bob"}],"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"as-dev"}}`, http.StatusCreated)
	s.expect("bob-token", "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", `{}`, http.StatusCreated, "Impersonate-User", "carol", "Impersonate-Group", "dev")
	out = s.expect("bob-token", "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", `{}`, http.StatusForbidden, "Impersonate-User", "carol", "Impersonate-Group", "system:masters")
	if !strings.Contains(out, `groups \"system:masters\" is forbidden: User \"bob\" cannot impersonate resource \"groups\"`) {
		t.Errorf("bob as system:masters: %s", out)
	}
}

func TestAuditRecords(t *testing.T) {
	s := newTestServer(t, false)
	s.audit.Reset()
	s.expect("admin-token", "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/ns1/rolebindings", rolebindingAliceEdit, http.StatusCreated)
	s.expect("alice-token", "GET", nsPath("ns2"), "", http.StatusForbidden)
	s.expect("admin-token", "GET", nsPath("ns1"), "", http.StatusOK, "Impersonate-User", "alice")
	s.expect("", "GET", nsPath("ns1"), "", http.StatusUnauthorized)
	var events []audit.Event
	for _, line := range strings.Split(strings.TrimSpace(s.audit.String()), "\n") {
		var ev audit.Event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		events = append(events, ev)
	}
	if len(events) != 4 {
		t.Fatalf("%d records, want one per request:\n%s", len(events), s.audit)
	}
	want := []struct {
		user, as, verb, ns string
		code               int32
	}{{"admin", "", "create", "ns1", 201}, {"alice", "", "list", "ns2", 403}, {"admin", "alice", "list", "ns1", 200}, {"", "", "list", "ns1", 401}}
	for i, w := range want {
		ev := events[i]
		as := ""
		if ev.ImpersonatedUser != nil {
			as = ev.ImpersonatedUser.Username
		}
		if ev.Kind != "Event" || ev.APIVersion != "audit.k8s.io/v1" || ev.Stage != audit.StageResponseComplete || ev.Level != audit.LevelMetadata ||
			ev.User.Username != w.user || as != w.as || ev.Verb != w.verb || ev.ObjectRef == nil || ev.ObjectRef.Namespace != w.ns ||
			ev.ResponseStatus == nil || ev.ResponseStatus.Code != w.code || ev.AuditID == "" {
			t.Errorf("record %d: %+v, want %+v", i, ev, w)
		}
	}
	if events[1].ResponseStatus.Reason != "Forbidden" || !strings.Contains(events[1].ResponseStatus.Message, `cannot list resource "things"`) {
		t.Errorf("403 record: %+v", events[1].ResponseStatus)
	}
	if strings.Contains(s.audit.String(), "-token") {
		t.Error("the audit log holds a credential")
	}
}

// TestUnsafeDeleteNeedsItsVerb: deleting with
// ignoreStoreReadErrorWithClusterBreakingPotential takes the verb
// unsafe-delete-ignore-read-errors besides delete.
func TestUnsafeDeleteNeedsItsVerb(t *testing.T) {
	s := newTestServer(t, false)
	s.expect("admin-token", "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/ns1/rolebindings", rolebindingAliceEdit, http.StatusCreated)
	s.expect("alice-token", "POST", nsPath("ns1"), `{"metadata":{"name":"t1"}}`, http.StatusCreated)
	unsafe := `{"kind":"DeleteOptions","apiVersion":"v1","ignoreStoreReadErrorWithClusterBreakingPotential":true}`
	out := s.expect("alice-token", "DELETE", nsPath("ns1")+"/t1", unsafe, http.StatusForbidden)
	if got, want := message(t, out), `things.example.com "t1" is forbidden: not permitted to do "unsafe-delete-ignore-read-errors", reason: `; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	// The administrator holds it; the object decodes, so the unsafe
	// delete is refused for what it is, not for want of permission.
	if code, out := s.do("admin-token", "DELETE", nsPath("ns1")+"/t1", unsafe); code == http.StatusForbidden {
		t.Errorf("administrator: %d %s", code, out)
	}
	s.expect("alice-token", "DELETE", nsPath("ns1")+"/t1", "", http.StatusOK)
}
