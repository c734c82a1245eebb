package auth

import (
	"net/http"
	"strings"
	"testing"
)

func FuzzParseBearerToken(f *testing.F) {
	for _, s := range []string{"Bearer abc", "bearer  x ", "Basic abc", "Bearer", "Bearer a b", "\tBEARER\tq", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, header string) {
		tok, ok := ParseBearerToken(header)
		if ok && (tok == "" || strings.ContainsAny(tok, " \t") || !strings.Contains(header, tok)) {
			t.Fatalf("ParseBearerToken(%q) = %q", header, tok)
		}
	})
}

func FuzzParseTokenFile(f *testing.F) {
	for _, s := range []string{"t,u,1\n", "t,u,1,\"a,b\"\n# c\n", "\"t\n", ",,\n", "t,u\n", "a,b,c,d,e,f\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		tf, err := ParseTokenFile(strings.NewReader(in))
		if err != nil {
			return
		}
		for tok, u := range tf.users {
			if tok == "" || u.Name == "" {
				t.Fatalf("accepted an empty token or user: %q %+v", tok, u)
			}
		}
	})
}

// FuzzHeaders feeds arbitrary front-proxy and impersonation headers: they
// never panic, impersonation of groups, uid or extra needs a user, and
// every X-Remote- header is gone after a trusted proxy's request.
func FuzzHeaders(f *testing.F) {
	f.Add("X-Remote-User", "alice", "Impersonate-Group", "dev")
	f.Add("X-Remote-Extra-%zz", "v", "Impersonate-Extra-", "x")
	f.Add("X-Remote-Group", "", "Impersonate-User", "system:serviceaccount:ns:sa")
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string) {
		h := http.Header{}
		h[http.CanonicalHeaderKey(k1)] = []string{v1}
		h[http.CanonicalHeaderKey(k2)] = []string{v2}
		rh := &RequestHeader{}
		if u, ok := rh.userFrom(h); ok && u.Name == "" {
			t.Fatal("a user without a name")
		}
		rh.stripHeaders(h)
		for k := range h {
			if strings.HasPrefix(strings.ToLower(k), "x-remote-user") || strings.HasPrefix(strings.ToLower(k), "x-remote-group") || strings.HasPrefix(strings.ToLower(k), "x-remote-extra-") {
				t.Fatalf("%s left on the request", k)
			}
		}
		im, err := parseImpersonation(h)
		if err == nil && im.any && im.user == "" {
			t.Fatal("impersonation without a user accepted")
		}
	})
}
