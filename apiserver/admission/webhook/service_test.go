package webhook

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/apiserver/admission"
	ar "github.com/kapi-dev/kapi/kinds/admissionregistrationv1"
)

// serviceCert is a CA and a serving certificate for dnsName signed by it.
func serviceCert(t *testing.T, dnsName string) (tls.Certificate, []byte) {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "aw-ca"}, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTpl, caTpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: dnsName}, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(time.Hour), DNSNames: []string{dnsName}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
}

// A Service webhook whose certificate names NAME.NAMESPACE.svc, signed by
// its caBundle, is called at the address the resolver gives, on its path,
// over one reused connection.
func TestServiceWebhook(t *testing.T) {
	cert, ca := serviceCert(t, "aw-hook.aw-ns.svc")
	var conns atomic.Int32
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/check" {
			http.NotFound(w, r)
			return
		}
		var rv review
		_ = json.NewDecoder(r.Body).Decode(&rv)
		allow(w, r, &rv)
	}))
	s.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			conns.Add(1)
		}
	}
	s.StartTLS()
	defer s.Close()
	u, _ := url.Parse(s.URL)
	h := ar.ValidatingWebhook{
		Name: "aw.hook", Rules: widgetRules, FailurePolicy: ptr(ar.Fail), SideEffects: ptr(ar.SideEffectClassNone),
		AdmissionReviewVersions: []string{"v1"},
		ClientConfig:            ar.WebhookClientConfig{Service: &ar.ServiceReference{Namespace: "aw-ns", Name: "aw-hook", Path: ptr("/check")}, CABundle: ca},
	}
	p, _, _ := newPlugin(t, validatingConfig("aw", h))
	p.clients.resolve = func(_ context.Context, ns, name string, port int32) (string, error) {
		if ns != "aw-ns" || name != "aw-hook" || port != 443 {
			t.Errorf("resolving %s/%s:%d", ns, name, port)
		}
		return u.Host, nil
	}
	for range 3 {
		if err := p.Validate(context.Background(), widgetRequest(admission.Create, "v1", nil)); err != nil {
			t.Fatal(err)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("%d connections for 3 calls", n)
	}
}
