package auth

import (
	"crypto/sha256"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// CAPool provides the current pool of certificate authorities to verify
// client certificates against. A pool that changes (a reloaded file)
// returns a new *x509.CertPool, never a changed one.
type CAPool interface {
	Pool() *x509.CertPool
}

// StaticCAPool is a CAPool that never changes.
type StaticCAPool struct{ P *x509.CertPool }

// Pool returns p.P.
func (p StaticCAPool) Pool() *x509.CertPool { return p.P }

// X509 authenticates requests by their TLS client certificate: a
// certificate that chains to CA for client authentication is the user
// named by its subject's common name, in the groups of its organizations,
// as kube-apiserver's --client-ca-file does. A request without a client
// certificate is not recognised; one whose certificate does not verify
// fails.
//
// Verification results are cached per certificate chain and CA pool, so
// the requests of one connection (and of every connection presenting the
// same certificate) verify the chain once.
type X509 struct {
	CA    CAPool
	cache verifyCache
}

var _ Authenticator = (*X509)(nil)

// AuthenticateRequest verifies the client certificate.
func (a *X509) AuthenticateRequest(r *http.Request) (*User, bool, error) {
	if r.TLS == nil || len(r.TLS.PeerCertificates) == 0 {
		return nil, false, nil
	}
	leaf, err := a.cache.verify(a.CA.Pool(), r.TLS.PeerCertificates)
	if err != nil {
		return nil, false, err
	}
	if leaf.Subject.CommonName == "" {
		return nil, false, errors.New("x509: client certificate has an empty common name")
	}
	u := &User{Name: leaf.Subject.CommonName}
	u.Groups = append(u.Groups, leaf.Subject.Organization...)
	return u, true, nil
}

// verifyCache remembers which certificate chains verified against which
// pool, so that a chain is verified once rather than on every request.
type verifyCache struct {
	mu      sync.RWMutex
	entries map[verifyKey]verifyResult
}

type verifyKey struct {
	pool  *x509.CertPool
	chain [sha256.Size]byte
}

type verifyResult struct {
	leaf  *x509.Certificate
	err   error
	until time.Time // the leaf's NotAfter: past it, verify again
}

// maxVerifyCache bounds the cache; it is emptied when full.
const maxVerifyCache = 4096

func (c *verifyCache) verify(pool *x509.CertPool, chain []*x509.Certificate) (*x509.Certificate, error) {
	if pool == nil {
		return nil, errors.New("x509: no certificate authority to verify client certificates against")
	}
	h := sha256.New()
	for _, cert := range chain {
		h.Write(cert.Raw)
	}
	key := verifyKey{pool: pool}
	h.Sum(key.chain[:0])
	now := time.Now()
	c.mu.RLock()
	res, ok := c.entries[key]
	c.mu.RUnlock()
	if ok && now.Before(res.until) {
		return res.leaf, res.err
	}
	res = verifyChain(pool, chain, now)
	c.mu.Lock()
	if c.entries == nil || len(c.entries) >= maxVerifyCache {
		c.entries = make(map[verifyKey]verifyResult)
	}
	c.entries[key] = res
	c.mu.Unlock()
	return res.leaf, res.err
}

func verifyChain(pool *x509.CertPool, chain []*x509.Certificate, now time.Time) verifyResult {
	leaf := chain[0]
	inter := x509.NewCertPool()
	for _, c := range chain[1:] {
		inter.AddCert(c)
	}
	_, err := leaf.Verify(x509.VerifyOptions{
		Roots: pool, Intermediates: inter, CurrentTime: now,
		KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
	if err != nil {
		// Not cached past a minute: the CA may be fixed on disk.
		return verifyResult{err: fmt.Errorf("verifying certificate SN=%s failed: %w", leaf.SerialNumber, err), until: now.Add(time.Minute)}
	}
	return verifyResult{leaf: leaf, until: leaf.NotAfter}
}
