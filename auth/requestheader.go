package auth

import (
	"fmt"
	"net/http"
	"net/textproto"
	"net/url"
	"slices"
	"strings"
)

// RequestHeader authenticates requests forwarded by an authenticating
// front proxy (kube-apiserver's aggregation layer, an auth proxy): the
// user named in X-Remote-User (or UsernameHeaders), in the groups of
// X-Remote-Group, with the extra attributes of X-Remote-Extra-<key>
// headers. The headers are trusted only on connections whose client
// certificate chains to CA and, when AllowedNames is not empty, whose
// common name is one of them; on every other request they are removed
// (by a [Chain]) so that nothing after authentication can mistake them
// for the proxy's.
type RequestHeader struct {
	// CA verifies the front proxy's client certificate
	// (--requestheader-client-ca-file).
	CA CAPool
	// AllowedNames are the common names a front proxy's certificate may
	// have; empty allows any (--requestheader-allowed-names).
	AllowedNames []string
	// UsernameHeaders are read in order; the first non-empty one names
	// the user. Default X-Remote-User.
	UsernameHeaders []string
	// UIDHeaders carry the user's UID; default: none.
	UIDHeaders []string
	// GroupHeaders carry the user's groups, one a value. Default
	// X-Remote-Group.
	GroupHeaders []string
	// ExtraHeaderPrefixes start the headers of extra attributes; the
	// rest of the header name, lower-cased and URL-unescaped, is the key.
	// Default X-Remote-Extra-.
	ExtraHeaderPrefixes []string

	cache verifyCache
}

var _ Authenticator = (*RequestHeader)(nil)

// AuthenticateRequest reads the user from the headers of a trusted proxy.
func (a *RequestHeader) AuthenticateRequest(r *http.Request) (*User, bool, error) {
	if r.TLS == nil || len(r.TLS.PeerCertificates) == 0 {
		return nil, false, nil
	}
	leaf, err := a.cache.verify(a.CA.Pool(), r.TLS.PeerCertificates)
	if err != nil {
		return nil, false, err
	}
	if len(a.AllowedNames) > 0 && !slices.Contains(a.AllowedNames, leaf.Subject.CommonName) {
		return nil, false, fmt.Errorf("x509: subject with cn=%s is not in the allowed list", leaf.Subject.CommonName)
	}
	u, ok := a.userFrom(r.Header)
	a.stripHeaders(r.Header)
	return u, ok, nil
}

// userFrom reads the user from trusted headers.
func (a *RequestHeader) userFrom(h http.Header) (*User, bool) {
	name := firstValue(h, orDefault(a.UsernameHeaders, "X-Remote-User"))
	if name == "" {
		return nil, false
	}
	u := &User{Name: name, UID: firstValue(h, a.UIDHeaders)}
	for _, gh := range orDefault(a.GroupHeaders, "X-Remote-Group") {
		u.Groups = append(u.Groups, h.Values(gh)...)
	}
	for key, values := range h {
		for _, p := range orDefault(a.ExtraHeaderPrefixes, "X-Remote-Extra-") {
			p = textproto.CanonicalMIMEHeaderKey(p)
			if len(key) > len(p) && strings.EqualFold(key[:len(p)], p) {
				k := strings.ToLower(key[len(p):])
				if uk, err := url.PathUnescape(k); err == nil {
					k = uk
				}
				if u.Extra == nil {
					u.Extra = make(map[string][]string)
				}
				u.Extra[k] = append(u.Extra[k], values...)
			}
		}
	}
	return u, true
}

// stripHeaders removes every header the proxy could have set.
func (a *RequestHeader) stripHeaders(h http.Header) {
	for _, name := range orDefault(a.UsernameHeaders, "X-Remote-User") {
		h.Del(name)
	}
	for _, name := range a.UIDHeaders {
		h.Del(name)
	}
	for _, name := range orDefault(a.GroupHeaders, "X-Remote-Group") {
		h.Del(name)
	}
	for _, p := range orDefault(a.ExtraHeaderPrefixes, "X-Remote-Extra-") {
		for key := range h {
			if len(key) >= len(p) && strings.EqualFold(key[:len(p)], p) {
				delete(h, key)
			}
		}
	}
}

func firstValue(h http.Header, names []string) string {
	for _, n := range names {
		if v := strings.TrimSpace(h.Get(n)); v != "" {
			return v
		}
	}
	return ""
}

func orDefault(v []string, def string) []string {
	if len(v) == 0 {
		return []string{def}
	}
	return v
}
