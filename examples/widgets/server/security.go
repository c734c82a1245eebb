package server

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"os"
	"time"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/audit"
	"github.com/kapi-dev/kapi/auth"
	"github.com/kapi-dev/kapi/auth/rbac"
)

// Authorization modes (--authorization-mode).
const (
	AuthorizationAlwaysAllow = "AlwaysAllow"
	AuthorizationRBAC        = "RBAC"
)

// AuthConfig is who may do what on the example server, each field named
// after the kube-apiserver flag that sets it. The zero value
// authenticates no one and allows everything.
type AuthConfig struct {
	// ClientCAFile verifies client certificates (--client-ca-file).
	ClientCAFile string
	// TokenAuthFile is a static token file (--token-auth-file).
	TokenAuthFile string
	// RequestHeaderClientCAFile verifies front proxies
	// (--requestheader-client-ca-file); RequestHeaderAllowedNames are the
	// common names they may have, and the header lists override
	// X-Remote-User, X-Remote-Group and X-Remote-Extra-.
	RequestHeaderClientCAFile       string
	RequestHeaderAllowedNames       []string
	RequestHeaderUsernameHeaders    []string
	RequestHeaderUIDHeaders         []string
	RequestHeaderGroupHeaders       []string
	RequestHeaderExtraHeadersPrefix []string
	// AnonymousAuth lets requests without credentials in as
	// system:anonymous once some authentication is configured
	// (--anonymous-auth, default true as in kube-apiserver).
	AnonymousAuth bool
	// AuthorizationMode is AlwaysAllow (the default) or RBAC. RBAC serves
	// rbac.authorization.k8s.io/v1 with kube's default roles, and makes
	// an administrator client certificate in system:masters
	// (Server.AdminCert).
	AuthorizationMode string
	// AuditLogPath receives one audit.k8s.io/v1 event per request as
	// JSON lines ("-" is standard output); AuditPolicyFile chooses their
	// levels (default: Metadata for every request).
	AuditLogPath    string
	AuditPolicyFile string
}

// authenticates reports whether any authentication is configured.
func (c AuthConfig) authenticates() bool {
	return c.ClientCAFile != "" || c.TokenAuthFile != "" || c.RequestHeaderClientCAFile != "" || c.AuthorizationMode == AuthorizationRBAC
}

// security is what AuthConfig builds: the server options it sets and the
// pieces Open and Run need later.
type security struct {
	opts      apiserver.Options // Authenticator, Authorizer, Audit, ValidatingAdmission
	rbac      *rbac.Authorizer
	clientCAs []*auth.CAFile
	admin     *KeyPair // RBAC: the administrator's client certificate
	closes    []func()
}

// KeyPair is a PEM certificate and its key.
type KeyPair struct{ CertPEM, KeyPEM []byte }

func newSecurity(c AuthConfig, stdout io.Writer) (*security, error) {
	s := &security{}
	switch c.AuthorizationMode {
	case "", AuthorizationAlwaysAllow:
	case AuthorizationRBAC:
		s.rbac = rbac.New()
		s.opts.Authorizer = auth.Authorizers{auth.PrivilegedGroups{auth.SystemPrivilegedGroup}, s.rbac}
		s.opts.ValidatingAdmission = []apiserver.AdmissionFunc{s.rbac.Admit}
	default:
		return nil, fmt.Errorf("--authorization-mode: unsupported %q (AlwaysAllow or RBAC)", c.AuthorizationMode)
	}
	if c.authenticates() {
		chain, err := s.authenticators(c)
		if err != nil {
			return nil, err
		}
		s.opts.Authenticator = chain
	}
	if c.AuditLogPath != "" {
		if err := s.openAudit(c, stdout); err != nil {
			s.close()
			return nil, err
		}
	}
	return s, nil
}

// authenticators builds the chain: front proxy first (so its headers are
// only ever read from a trusted proxy), client certificates, tokens.
func (s *security) authenticators(c AuthConfig) (auth.Chain, error) {
	chain := auth.Chain{Anonymous: c.AnonymousAuth}
	if c.RequestHeaderClientCAFile != "" {
		ca, err := auth.NewCAFile(c.RequestHeaderClientCAFile)
		if err != nil {
			return chain, fmt.Errorf("--requestheader-client-ca-file: %w", err)
		}
		s.clientCAs = append(s.clientCAs, ca)
		chain.Authenticators = append(chain.Authenticators, &auth.RequestHeader{
			CA: ca, AllowedNames: c.RequestHeaderAllowedNames,
			UsernameHeaders: c.RequestHeaderUsernameHeaders, UIDHeaders: c.RequestHeaderUIDHeaders,
			GroupHeaders: c.RequestHeaderGroupHeaders, ExtraHeaderPrefixes: c.RequestHeaderExtraHeadersPrefix,
		})
	}
	if c.ClientCAFile != "" {
		ca, err := auth.NewCAFile(c.ClientCAFile)
		if err != nil {
			return chain, fmt.Errorf("--client-ca-file: %w", err)
		}
		s.clientCAs = append(s.clientCAs, ca)
		chain.Authenticators = append(chain.Authenticators, &auth.X509{CA: ca})
	}
	if s.rbac != nil {
		pool, admin, err := newAdminCredential()
		if err != nil {
			return chain, err
		}
		s.admin = admin
		chain.Authenticators = append(chain.Authenticators, &auth.X509{CA: auth.StaticCAPool{P: pool}})
	}
	if c.TokenAuthFile != "" {
		tf, err := auth.LoadTokenFile(c.TokenAuthFile)
		if err != nil {
			return chain, fmt.Errorf("--token-auth-file: %w", err)
		}
		chain.Authenticators = append(chain.Authenticators, auth.BearerToken{Tokens: tf})
	}
	return chain, nil
}

func (s *security) openAudit(c AuthConfig, stdout io.Writer) error {
	var policy *audit.Policy
	if c.AuditPolicyFile != "" {
		p, err := audit.LoadPolicy(c.AuditPolicyFile)
		if err != nil {
			return fmt.Errorf("--audit-policy-file: %w", err)
		}
		policy = p
	}
	w := stdout
	if c.AuditLogPath != "-" {
		f, err := os.OpenFile(c.AuditLogPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return fmt.Errorf("--audit-log-path: %w", err)
		}
		s.closes = append(s.closes, func() { _ = f.Close() })
		w = f
	}
	s.opts.Audit = audit.NewLogger(w, policy)
	return nil
}

// install registers the RBAC kinds and creates the default roles, with
// the view and edit rules of the example kinds aggregated into view,
// edit and admin.
func (s *security) install(api *apiserver.Server) error {
	if s.rbac == nil {
		return nil
	}
	if err := s.rbac.Register(api); err != nil {
		return err
	}
	objs := rbac.BootstrapPolicy()
	objs = append(objs, rbac.AggregatedRoles("kapi:widgets", "stable.example.com", "widgets", "widgets/status", "widgets/scale", "gadgets", "sprockets")...)
	objs = append(objs, rbac.AggregatedRoles("kapi:leases", "coordination.k8s.io", "leases")...)
	objs = append(objs, rbac.AggregatedRoles("kapi:core", "", "configmaps", "secrets", "events", "serviceaccounts")...)
	objs = append(objs, rbac.AggregatedRoles("kapi:events", "events.k8s.io", "events")...)
	return rbac.Bootstrap(context.Background(), api, objs...)
}

func (s *security) close() {
	for _, c := range s.closes {
		c()
	}
	s.closes = nil
}

// newAdminCredential makes a CA, kept in memory for the life of the
// process, and an administrator's client certificate it signs: CN
// kapi-admin in O system:masters.
func newAdminCredential() (*x509.CertPool, *KeyPair, error) {
	caKey, caCert, err := newCert("kapi-admin-ca", nil, nil, nil)
	if err != nil {
		return nil, nil, err
	}
	key, cert, err := newCert("kapi-admin", []string{auth.SystemPrivilegedGroup}, caCert, caKey)
	if err != nil {
		return nil, nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(caCert)
	kp, err := pemPair(cert, key)
	return pool, kp, err
}

// newServingCert makes a self-signed serving certificate for loopback
// addresses, for a server that needs TLS and was given no certificate.
func newServingCert() (tls.Certificate, error) {
	key, cert, err := newCert("kapi-serving", nil, nil, nil)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{cert.Raw}, PrivateKey: key, Leaf: cert}, nil
}

// newCert makes a certificate: a self-signed CA (also valid for serving
// on loopback) when parent is nil, else a client certificate it signs.
func newCert(cn string, orgs []string, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) (*ecdsa.PrivateKey, *x509.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial, Subject: pkix.Name{CommonName: cn, Organization: orgs},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(365 * 24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature,
	}
	if parent == nil {
		tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
		tmpl.KeyUsage |= x509.KeyUsageCertSign
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}
		tmpl.DNSNames = []string{"localhost"}
		tmpl.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}
		parent, parentKey = tmpl, key
	} else {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		return nil, nil, err
	}
	cert, err := x509.ParseCertificate(der)
	return key, cert, err
}

func pemPair(cert *x509.Certificate, key *ecdsa.PrivateKey) (*KeyPair, error) {
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	return &KeyPair{
		CertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw}),
		KeyPEM:  pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}),
	}, nil
}

// tlsConfig is the serving TLS of Run: the given certificate files
// (reloaded when they change), or a self-signed certificate when the
// server authenticates clients by certificate and was given none; nil
// for plain http.
func (s *security) tlsConfig(certFile, keyFile string, c AuthConfig) (*tls.Config, error) {
	if certFile != "" {
		if keyFile == "" {
			return nil, errors.New("--tls-cert-file needs --tls-private-key-file")
		}
		return auth.NewServingTLSConfig(auth.ServingFiles{CertFile: certFile, KeyFile: keyFile, ClientCAs: s.clientCAs})
	}
	if !c.authenticates() {
		return nil, nil
	}
	cert, err := newServingCert()
	if err != nil {
		return nil, err
	}
	return &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{cert},
		ClientAuth: tls.RequestClientCert, NextProtos: []string{"h2", "http/1.1"}}, nil
}
