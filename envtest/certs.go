package envtest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"time"
)

// tinyCA signs the environment's serving certificate and its users'
// client certificates. It lives in memory for the environment's life.
type tinyCA struct {
	cert  *x509.Certificate
	key   *ecdsa.PrivateKey
	pem   []byte
	pool  *x509.CertPool
	start time.Time
}

func newTinyCA(cn string) (*tinyCA, error) {
	now := time.Now()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		Subject:   pkix.Name{CommonName: cn},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(7 * 24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	cert, err := sign(tmpl, nil, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &tinyCA{cert: cert, key: key, pem: certPEM(cert), pool: pool, start: now}, nil
}

// sign creates a certificate from tmpl; parent nil makes it self-signed.
func sign(tmpl, parent *x509.Certificate, pub *ecdsa.PublicKey, signer *ecdsa.PrivateKey) (*x509.Certificate, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, err
	}
	tmpl.SerialNumber = serial
	if parent == nil {
		parent = tmpl
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, pub, signer)
	if err != nil {
		return nil, fmt.Errorf("envtest: signing a certificate: %w", err)
	}
	return x509.ParseCertificate(der)
}

// issue makes a key pair the CA signs: a serving certificate for hosts
// (names or IP addresses) when serving, else a client certificate whose
// common name is the user and organizations its groups, as
// kube-apiserver's x509 authenticator reads them.
func (ca *tinyCA) issue(cn string, orgs []string, serving bool, hosts ...string) (certPEMBytes, keyPEMBytes []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		Subject:   pkix.Name{CommonName: cn, Organization: orgs},
		NotBefore: ca.start.Add(-time.Hour), NotAfter: ca.cert.NotAfter,
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	if serving {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
		for _, h := range hosts {
			if ip := net.ParseIP(h); ip != nil {
				tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
			} else {
				tmpl.DNSNames = append(tmpl.DNSNames, h)
			}
		}
	}
	cert, err := sign(tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return nil, nil, err
	}
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return certPEM(cert), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), nil
}

// servingTLS is the server's TLS configuration: a certificate for the
// loopback addresses, and client certificates requested (not required:
// tokens and anonymous requests are authenticated otherwise).
func (ca *tinyCA) servingTLS() (*tls.Config, error) {
	c, k, err := ca.issue("kapi-envtest", nil, true, "127.0.0.1", "::1", "localhost")
	if err != nil {
		return nil, err
	}
	pair, err := tls.X509KeyPair(c, k)
	if err != nil {
		return nil, err
	}
	return &tls.Config{
		MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{pair},
		ClientAuth: tls.RequestClientCert, NextProtos: []string{"h2", "http/1.1"},
	}, nil
}

func certPEM(c *x509.Certificate) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})
}
