package auth

import (
	"context"
	"crypto/x509"
	"errors"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestX509(t *testing.T) {
	ca, other := newTestCA(t, "client-ca"), newTestCA(t, "other-ca")
	good, _ := ca.issue(t, "alice", []string{"dev", "qa"}, x509.ExtKeyUsageClientAuth, time.Now().Add(time.Hour))
	noCN, _ := ca.issue(t, "", []string{"dev"}, x509.ExtKeyUsageClientAuth, time.Now().Add(time.Hour))
	serverOnly, _ := ca.issue(t, "srv", nil, x509.ExtKeyUsageServerAuth, time.Now().Add(time.Hour))
	expired, _ := ca.issue(t, "old", nil, x509.ExtKeyUsageClientAuth, time.Now().Add(-time.Minute))
	foreign, _ := other.issue(t, "mallory", []string{"system:masters"}, x509.ExtKeyUsageClientAuth, time.Now().Add(time.Hour))
	tests := []struct {
		name    string
		req     *http.Request
		want    *User
		wantErr bool
	}{
		{"no certificate", withCert(), nil, false},
		{"CN is the user, O the groups", withCert(good), &User{Name: "alice", Groups: []string{"dev", "qa"}}, false},
		{"empty common name", withCert(noCN), nil, true},
		{"not for client authentication", withCert(serverOnly), nil, true},
		{"expired", withCert(expired), nil, true},
		{"signed by another CA", withCert(foreign), nil, true},
	}
	a := &X509{CA: StaticCAPool{ca.pool()}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			u, ok, err := a.AuthenticateRequest(tc.req)
			if u != nil {
				sort.Strings(u.Groups)
			}
			if (err != nil) != tc.wantErr || ok != (tc.want != nil) {
				t.Errorf("got ok %v, error %v; want ok %v (error %v)", ok, err, tc.want != nil, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, u); diff != "" {
				t.Errorf("user (-want +got):\n%s", diff)
			}
		})
	}
}

func TestX509VerifiesAChainOnce(t *testing.T) {
	ca := newTestCA(t, "client-ca")
	cert, _ := ca.issue(t, "alice", nil, x509.ExtKeyUsageClientAuth, time.Now().Add(time.Hour))
	a := &X509{CA: StaticCAPool{ca.pool()}}
	for range 3 {
		if _, ok, err := a.AuthenticateRequest(withCert(cert)); !ok || err != nil {
			t.Fatal(ok, err)
		}
	}
	if n := len(a.cache.entries); n != 1 {
		t.Errorf("%d cache entries after three requests with one certificate", n)
	}
	// A new pool (a reloaded CA file) verifies again.
	a.CA = StaticCAPool{ca.pool()}
	if _, ok, _ := a.AuthenticateRequest(withCert(cert)); !ok || len(a.cache.entries) != 2 {
		t.Errorf("after a CA change: ok %v, %d entries", ok, len(a.cache.entries))
	}
}

func BenchmarkX509(b *testing.B) {
	ca := newTestCA(b, "client-ca")
	cert, _ := ca.issue(b, "alice", nil, x509.ExtKeyUsageClientAuth, time.Now().Add(time.Hour))
	a := &X509{CA: StaticCAPool{ca.pool()}}
	r := withCert(cert)
	b.ReportAllocs()
	for range b.N {
		if _, ok, _ := a.AuthenticateRequest(r); !ok {
			b.Fatal("not authenticated")
		}
	}
}

func TestBearerToken(t *testing.T) {
	tf, err := ParseTokenFile(strings.NewReader("t1,alice,1,\"dev,qa\"\nt2,bob,2\n"))
	if err != nil {
		t.Fatal(err)
	}
	a := BearerToken{Tokens: tf}
	tests := []struct {
		name, header string
		want         *User
		wantErr      error
	}{
		{"no header", "", nil, nil},
		{"basic auth is not ours", "Basic YWxpY2U6cHc=", nil, nil},
		{"empty token", "Bearer ", nil, nil},
		{"token with groups", "Bearer t1", &User{Name: "alice", UID: "1", Groups: []string{"dev", "qa"}}, nil},
		{"scheme in any case", "bearer t2", &User{Name: "bob", UID: "2"}, nil},
		{"unknown token", "Bearer nope", nil, ErrInvalidToken},
		{"two tokens", "Bearer t1 t2", nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			if tc.header != "" {
				r.Header.Set("Authorization", tc.header)
			}
			u, ok, err := a.AuthenticateRequest(r)
			if !errors.Is(err, tc.wantErr) || ok != (tc.want != nil) {
				t.Errorf("got ok %v, error %v; want ok %v, error %v", ok, err, tc.want != nil, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, u); diff != "" {
				t.Errorf("user (-want +got):\n%s", diff)
			}
			if ok && r.Header.Get("Authorization") != "" {
				t.Error("the Authorization header is still on the request")
			}
			if err != nil && strings.Contains(err.Error(), "nope") {
				t.Error("the error holds the token")
			}
		})
	}
}

func TestParseTokenFile(t *testing.T) {
	tests := []struct {
		name, in, err string
		users         map[string]string
	}{
		{"lines and comments", "# tokens\nt1,alice,1\nt2, bob ,2,\"a,b\"\n", "", map[string]string{"t1": "alice", "t2": "bob"}},
		{"last line wins", "t1,alice,1\nt1,bob,2\n", "", map[string]string{"t1": "bob"}},
		{"too few columns", "t1,alice\n", "line 1: want at least 3 columns", nil},
		{"empty token", "t1,a,1\n,alice,1\n", "line 2: empty token", nil},
		{"empty user", "secret-token,,1\n", "line 1: empty user name", nil},
		{"bad quoting", "t1,\"alice,1\n", "line 1", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tf, err := ParseTokenFile(strings.NewReader(tc.in))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				if strings.Contains(err.Error(), "secret-token") {
					t.Error("the error holds a token")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for tok, name := range tc.users {
				if u, ok, _ := tf.AuthenticateToken(context.Background(), tok); !ok || u.Name != name {
					t.Errorf("%s: %+v %v, want %s", tok, u, ok, name)
				}
			}
		})
	}
}

func TestRequestHeader(t *testing.T) {
	proxyCA, clientCA := newTestCA(t, "front-proxy-ca"), newTestCA(t, "client-ca")
	proxy, _ := proxyCA.issue(t, "front-proxy-client", nil, x509.ExtKeyUsageClientAuth, time.Now().Add(time.Hour))
	otherProxy, _ := proxyCA.issue(t, "someone-else", nil, x509.ExtKeyUsageClientAuth, time.Now().Add(time.Hour))
	client, _ := clientCA.issue(t, "bob", nil, x509.ExtKeyUsageClientAuth, time.Now().Add(time.Hour))
	headers := map[string][]string{
		"X-Remote-User":               {"alice"},
		"X-Remote-Group":              {"dev", "qa"},
		"X-Remote-Extra-Scopes":       {"a", "b"},
		"X-Remote-Extra-Acme.com%2fx": {"y"},
	}
	tests := []struct {
		name    string
		req     *http.Request
		want    *User
		wantErr bool
	}{
		{"trusted proxy", withCert(proxy), &User{Name: "alice", Groups: []string{"dev", "qa"},
			Extra: map[string][]string{"scopes": {"a", "b"}, "acme.com/x": {"y"}}}, false},
		{"no certificate", withCert(), nil, false},
		{"proxy name not allowed", withCert(otherProxy), nil, true},
		{"a client certificate of another CA", withCert(client), nil, true},
	}
	a := &RequestHeader{CA: StaticCAPool{proxyCA.pool()}, AllowedNames: []string{"front-proxy-client"}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range headers {
				tc.req.Header[k] = v
			}
			u, ok, err := a.AuthenticateRequest(tc.req)
			if (err != nil) != tc.wantErr || ok != (tc.want != nil) {
				t.Errorf("got ok %v, error %v; want ok %v (error %v)", ok, err, tc.want != nil, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, u); diff != "" {
				t.Errorf("user (-want +got):\n%s", diff)
			}
		})
	}
	// No user header: not recognised, and the headers are gone.
	r := withCert(proxy)
	r.Header.Set("X-Remote-Group", "system:masters")
	if u, ok, err := a.AuthenticateRequest(r); ok || err != nil || u != nil || r.Header.Get("X-Remote-Group") != "" {
		t.Errorf("groups without a user: %+v %v %v, headers %v", u, ok, err, r.Header)
	}
}

// TestHeaderSpoofing sends front-proxy headers without the front proxy's
// certificate: they change nothing, and nothing after authentication sees
// them.
func TestHeaderSpoofing(t *testing.T) {
	proxyCA, clientCA := newTestCA(t, "front-proxy-ca"), newTestCA(t, "client-ca")
	client, _ := clientCA.issue(t, "bob", []string{"dev"}, x509.ExtKeyUsageClientAuth, time.Now().Add(time.Hour))
	tf, _ := ParseTokenFile(strings.NewReader("tok,carol,3\n"))
	chain := Chain{Authenticators: []Authenticator{
		&RequestHeader{CA: StaticCAPool{proxyCA.pool()}},
		&X509{CA: StaticCAPool{clientCA.pool()}},
		BearerToken{Tokens: tf},
	}, Anonymous: true}
	spoof := func(r *http.Request) *http.Request {
		r.Header.Set("X-Remote-User", "admin")
		r.Header.Add("X-Remote-Group", "system:masters")
		r.Header.Set("X-Remote-Extra-Scopes", "all")
		return r
	}
	tokenReq := spoof(httptest.NewRequest("GET", "/", nil))
	tokenReq.Header.Set("Authorization", "Bearer tok")
	tests := []struct {
		name string
		req  *http.Request
		want string
	}{
		{"anonymous", spoof(httptest.NewRequest("GET", "/", nil)), Anonymous},
		{"client certificate", spoof(withCert(client)), "bob"},
		{"token", tokenReq, "carol"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			u, ok, err := chain.AuthenticateRequest(tc.req)
			if err != nil || !ok || u.Name != tc.want || u.InGroup("system:masters") {
				t.Fatalf("got %+v %v %v, want %s", u, ok, err, tc.want)
			}
			for k := range tc.req.Header {
				if strings.HasPrefix(k, "X-Remote-") {
					t.Errorf("header %s reached the server", k)
				}
			}
		})
	}
}

func TestChain(t *testing.T) {
	user := func(name string) Authenticator {
		return AuthenticatorFunc(func(*http.Request) (*User, bool, error) { return &User{Name: name}, true, nil })
	}
	none := AuthenticatorFunc(func(*http.Request) (*User, bool, error) { return nil, false, nil })
	bad := AuthenticatorFunc(func(*http.Request) (*User, bool, error) { return nil, false, errors.New("bad credential") })
	tests := []struct {
		name     string
		chain    Chain
		want     string
		groups   []string
		wantErr  bool
		wantAnon bool
	}{
		{"first recognising wins", Chain{Authenticators: []Authenticator{none, user("a"), user("b")}}, "a", []string{AllAuthenticated}, false, false},
		{"an error does not stop a later success", Chain{Authenticators: []Authenticator{bad, user("b")}}, "b", []string{AllAuthenticated}, false, false},
		{"invalid credential is never anonymous", Chain{Authenticators: []Authenticator{bad, none}, Anonymous: true}, "", nil, true, false},
		{"anonymous", Chain{Authenticators: []Authenticator{none}, Anonymous: true}, Anonymous, []string{AllUnauthenticated}, false, true},
		{"no credential without anonymous", Chain{Authenticators: []Authenticator{none}}, "", nil, true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			u, ok, err := tc.chain.AuthenticateRequest(httptest.NewRequest("GET", "/", nil))
			if (err != nil) != tc.wantErr {
				t.Fatalf("error %v", err)
			}
			if tc.wantErr {
				return
			}
			if !ok || u.Name != tc.want {
				t.Fatalf("got %+v, want %s", u, tc.want)
			}
			if diff := cmp.Diff(tc.groups, u.Groups); diff != "" {
				t.Errorf("groups (-want +got):\n%s", diff)
			}
		})
	}
	// The group is added once.
	g := AuthenticatorFunc(func(*http.Request) (*User, bool, error) {
		return &User{Name: "x", Groups: []string{AllAuthenticated}}, true, nil
	})
	if u, _, _ := (Chain{Authenticators: []Authenticator{g}}).AuthenticateRequest(httptest.NewRequest("GET", "/", nil)); len(u.Groups) != 1 {
		t.Errorf("groups %v", u.Groups)
	}
}
