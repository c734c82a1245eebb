package auth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// testCA is a certificate authority for tests.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

func newTestCA(t testing.TB, name string) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return &testCA{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

func (ca *testCA) pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.cert)
	return p
}

// issue signs a certificate for cn in orgs with the given usage.
func (ca *testCA) issue(t testing.TB, cn string, orgs []string, usage x509.ExtKeyUsage, notAfter time.Time) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: cn, Organization: orgs},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: notAfter,
		ExtKeyUsage: []x509.ExtKeyUsage{usage}, KeyUsage: x509.KeyUsageDigitalSignature,
		DNSNames: []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return cert, key
}

func writePEM(t testing.TB, path string, blocks ...*pem.Block) {
	t.Helper()
	var b []byte
	for _, bl := range blocks {
		b = append(b, pem.EncodeToMemory(bl)...)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func keyBlock(t testing.TB, k *ecdsa.PrivateKey) *pem.Block {
	der, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return &pem.Block{Type: "EC PRIVATE KEY", Bytes: der}
}

// withCert returns a request presenting the certificate chain.
func withCert(chain ...*x509.Certificate) *http.Request {
	r := httptest.NewRequest("GET", "/api", nil)
	if len(chain) > 0 {
		r.TLS = &tls.ConnectionState{PeerCertificates: chain}
	}
	return r
}

func TestNewServingTLSConfigReloads(t *testing.T) {
	dir := t.TempDir()
	ca := newTestCA(t, "ca")
	certFile, keyFile, caFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key"), filepath.Join(dir, "ca.crt")
	write := func(cn string) {
		c, k := ca.issue(t, cn, nil, x509.ExtKeyUsageServerAuth, time.Now().Add(time.Hour))
		writePEM(t, certFile, &pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})
		writePEM(t, keyFile, keyBlock(t, k))
	}
	write("one")
	writePEM(t, caFile, &pem.Block{Type: "CERTIFICATE", Bytes: ca.cert.Raw})
	caf, err := NewCAFile(caFile)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := NewServingTLSConfig(ServingFiles{CertFile: certFile, KeyFile: keyFile, ClientCAs: []*CAFile{caf}})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ClientAuth != tls.RequestClientCert {
		t.Errorf("ClientAuth %v: client certificates must be asked for, not required", cfg.ClientAuth)
	}
	cn := func() string {
		c, err := cfg.GetCertificate(&tls.ClientHelloInfo{})
		if err != nil {
			t.Fatal(err)
		}
		leaf, _ := x509.ParseCertificate(c.Certificate[0])
		return leaf.Subject.CommonName
	}
	if got := cn(); got != "one" {
		t.Fatalf("serving %q", got)
	}
	hello, err := cfg.GetConfigForClient(&tls.ClientHelloInfo{})
	if err != nil || hello.ClientCAs == nil || !hello.ClientCAs.Equal(ca.pool()) {
		t.Errorf("per-client config: %v, ClientCAs %v", err, hello.ClientCAs)
	}
	// A new pair on disk is served after the next check.
	write("two")
	future := time.Now().Add(2 * time.Second)
	_ = os.Chtimes(certFile, future, future)
	time.Sleep(reloadEvery + 50*time.Millisecond)
	if got := cn(); got != "two" {
		t.Errorf("after rewriting the files: serving %q, want two", got)
	}
	// A new CA is used for verification after the next check.
	before := caf.Pool()
	ca2 := newTestCA(t, "ca2")
	writePEM(t, caFile, &pem.Block{Type: "CERTIFICATE", Bytes: ca2.cert.Raw})
	_ = os.Chtimes(caFile, future, future)
	time.Sleep(reloadEvery + 50*time.Millisecond)
	if after := caf.Pool(); after == before || !after.Equal(ca2.pool()) {
		t.Error("the CA file was not reloaded")
	}
	// A broken CA file keeps the last good pool.
	if err := os.WriteFile(caFile, []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	later := future.Add(time.Second)
	_ = os.Chtimes(caFile, later, later)
	time.Sleep(reloadEvery + 50*time.Millisecond)
	if !caf.Pool().Equal(ca2.pool()) {
		t.Error("a broken CA file replaced the pool")
	}
	if _, err := NewCAFile(caFile); err == nil {
		t.Error("NewCAFile accepted a file without certificates")
	}
}
