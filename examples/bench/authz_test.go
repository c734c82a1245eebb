package bench_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	mrand "math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/auth"
	"github.com/kapi-dev/kapi/examples/bench"
	"github.com/kapi-dev/kapi/examples/widgets/server"
)

// BenchmarkGetParallelAuthz is BenchmarkGetParallel on 1,000 Widgets, in
// process (the request carrying the client certificate as a TLS
// connection would) and over TLS on loopback, with authentication and authorization off (auth=off) and with a
// client certificate authenticated by --client-ca-file and authorized by
// RBAC through a RoleBinding to view (auth=rbac): the cost of deciding who
// may read, as a ratio of gets per second.
func BenchmarkGetParallelAuthz(b *testing.B) {
	const n = 1000
	for _, tr := range transports {
		for _, mode := range []string{"off", "rbac"} {
			b.Run("transport="+tr.String()+"/auth="+mode, func(b *testing.B) {
				e := newAuthzEnv(b, mode == "rbac", n)
				get := e.getter(tr)
				var seed atomic.Uint64
				setParallelClients(b)
				b.ReportAllocs()
				b.ResetTimer()
				b.RunParallel(func(pb *testing.PB) {
					rng := mrand.New(mrand.NewPCG(seed.Add(1), n))
					for pb.Next() {
						if code, err := get(e.paths[rng.IntN(n)]); err != nil || code != http.StatusOK {
							b.Errorf("GET: %d %v", code, err)
							return
						}
					}
				})
				b.StopTimer()
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "gets/s")
			})
		}
	}
}

// getter returns a function that GETs a path over the transport.
func (e *authzEnv) getter(tr transport) func(path string) (int, error) {
	if tr == inProcess {
		return func(path string) (int, error) {
			req := httptest.NewRequest("GET", path, nil)
			req.Header.Set("Accept", "application/json")
			req.TLS = e.conn
			rec := httptest.NewRecorder()
			e.h.ServeHTTP(rec, req)
			return rec.Code, nil
		}
	}
	return func(path string) (int, error) {
		resp, err := e.client.Get(e.srv.URL + path)
		if err != nil {
			return 0, err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode, nil
	}
}

// authzEnv is a Widget server on TLS with n Widgets and a client for it.
type authzEnv struct {
	h      http.Handler
	conn   *tls.ConnectionState // what in-process requests present
	srv    *httptest.Server
	client *http.Client
	paths  []string
}

func newAuthzEnv(b *testing.B, rbac bool, n int) *authzEnv {
	b.Helper()
	var cfg server.Config
	var clientCert []tls.Certificate
	if rbac {
		caFile, cert := clientCredentials(b, "bench-reader")
		cfg.Auth = server.AuthConfig{AuthorizationMode: server.AuthorizationRBAC, ClientCAFile: caFile}
		clientCert = []tls.Certificate{cert}
	}
	srv, err := server.Open(cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(srv.Close)
	// Loading goes through the host's own middleware, as an administrator.
	admin := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u := &auth.User{Name: "loader", Groups: []string{auth.SystemPrivilegedGroup}}
		srv.Handler.ServeHTTP(w, r.WithContext(auth.WithUser(r.Context(), u)))
	})
	f, err := newFixtureOn(admin, n)
	if err != nil {
		b.Fatal(err)
	}
	if rbac {
		body := `{"metadata":{"name":"bench-reader"},"subjects":[{"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":"bench-reader"}],
			"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"}}`
		req := httptest.NewRequestWithContext(context.Background(), "POST",
			"/apis/rbac.authorization.k8s.io/v1/namespaces/"+bench.Namespace+"/rolebindings", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		admin.ServeHTTP(rec, req)
		if rec.Code != http.StatusCreated {
			b.Fatalf("rolebinding: %d %s", rec.Code, rec.Body)
		}
	}
	ts := httptest.NewUnstartedServer(srv.Handler)
	ts.TLS = &tls.Config{ClientAuth: tls.RequestClientCert}
	ts.StartTLS()
	b.Cleanup(ts.Close)
	tr := ts.Client().Transport.(*http.Transport).Clone()
	tr.TLSClientConfig.Certificates = clientCert
	tr.MaxIdleConns, tr.MaxIdleConnsPerHost, tr.DisableCompression = 256, 256, true
	c := &http.Client{Transport: tr}
	b.Cleanup(c.CloseIdleConnections)
	// The first get proves the client is let in.
	resp, err := c.Get(ts.URL + f.paths[0])
	if err != nil || resp.StatusCode != http.StatusOK {
		b.Fatalf("first get: %v %v", resp, err)
	}
	resp.Body.Close()
	e := &authzEnv{h: srv.Handler, srv: ts, client: c, paths: f.paths, conn: &tls.ConnectionState{}}
	if rbac {
		leaf, err := x509.ParseCertificate(clientCert[0].Certificate[0])
		if err != nil {
			b.Fatal(err)
		}
		e.conn.PeerCertificates = []*x509.Certificate{leaf}
	}
	return e
}

// clientCredentials writes a CA to a file and returns it with a client
// certificate it signs for user.
func clientCredentials(b *testing.B, user string) (string, tls.Certificate) {
	b.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "bench-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		b.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: user},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "ca.crt")
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), 0o600); err != nil {
		b.Fatal(err)
	}
	return path, tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}
