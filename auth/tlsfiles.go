package auth

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// reloadEvery is how often a file-backed pool or key pair looks at its
// files for changes.
const reloadEvery = time.Second

// fileStamp identifies a version of a file by size and modification time.
type fileStamp struct {
	size int64
	mod  time.Time
}

func stamp(path string) (fileStamp, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}, err
	}
	return fileStamp{fi.Size(), fi.ModTime()}, nil
}

// CAFile is a CAPool read from a PEM file of certificates, read again
// when the file changes on disk (checked at most once a second), as
// kube-apiserver reloads --client-ca-file. A change that does not parse
// keeps the previous pool.
type CAFile struct {
	path string

	pool atomic.Pointer[x509.CertPool]
	next atomic.Int64 // unix nanoseconds of the next look at the file

	mu    sync.Mutex // serializes reloads
	certs []*x509.Certificate
	stamp fileStamp
}

var _ CAPool = (*CAFile)(nil)

// NewCAFile reads the CA bundle at path.
func NewCAFile(path string) (*CAFile, error) {
	f := &CAFile{path: path}
	if err := f.load(); err != nil {
		return nil, err
	}
	return f, nil
}

func (f *CAFile) load() error {
	st, err := stamp(f.path)
	if err != nil {
		return err
	}
	b, err := os.ReadFile(f.path)
	if err != nil {
		return err
	}
	certs, err := parseCerts(b)
	if err != nil {
		return fmt.Errorf("%s: %w", f.path, err)
	}
	pool := x509.NewCertPool()
	for _, c := range certs {
		pool.AddCert(c)
	}
	f.certs, f.stamp = certs, st
	f.pool.Store(pool)
	f.next.Store(time.Now().Add(reloadEvery).UnixNano())
	return nil
}

// Pool returns the current pool. Between looks at the file it costs an
// atomic load.
func (f *CAFile) Pool() *x509.CertPool {
	if now := time.Now().UnixNano(); now >= f.next.Load() {
		f.mu.Lock()
		if now >= f.next.Load() {
			f.next.Store(now + int64(reloadEvery))
			if st, err := stamp(f.path); err == nil && st != f.stamp {
				_ = f.load()
			}
		}
		f.mu.Unlock()
	}
	return f.pool.Load()
}

// Certificates returns the certificates of the current pool.
func (f *CAFile) Certificates() []*x509.Certificate {
	f.Pool()
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.certs
}

func parseCerts(b []byte) ([]*x509.Certificate, error) {
	var certs []*x509.Certificate
	for len(b) > 0 {
		block, rest := pem.Decode(b)
		if block == nil {
			break
		}
		b = rest
		if block.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, err
		}
		certs = append(certs, c)
	}
	if len(certs) == 0 {
		return nil, errors.New("no PEM certificates")
	}
	return certs, nil
}

// keyPairFile is a serving certificate and key, read again when either
// file changes.
type keyPairFile struct {
	certFile, keyFile string

	mu      sync.Mutex
	cert    *tls.Certificate
	stamps  [2]fileStamp
	checked time.Time
}

func (k *keyPairFile) load() error {
	cs, err := stamp(k.certFile)
	if err != nil {
		return err
	}
	ks, err := stamp(k.keyFile)
	if err != nil {
		return err
	}
	c, err := tls.LoadX509KeyPair(k.certFile, k.keyFile)
	if err != nil {
		return err
	}
	k.cert, k.stamps, k.checked = &c, [2]fileStamp{cs, ks}, time.Now()
	return nil
}

func (k *keyPairFile) get(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if time.Since(k.checked) >= reloadEvery {
		k.checked = time.Now()
		cs, err1 := stamp(k.certFile)
		ks, err2 := stamp(k.keyFile)
		if err1 == nil && err2 == nil && [2]fileStamp{cs, ks} != k.stamps {
			_ = k.load() // a half-written pair keeps the previous one
		}
	}
	return k.cert, nil
}

// ServingFiles names the files of a TLS server that authenticates
// clients by certificate.
type ServingFiles struct {
	// CertFile and KeyFile are the serving certificate and its key
	// (--tls-cert-file, --tls-private-key-file). Required.
	CertFile, KeyFile string
	// ClientCAs are the authorities whose client certificates the server
	// takes (the client CA, the front proxy's CA): their names are sent
	// to clients choosing a certificate.
	ClientCAs []*CAFile
}

// NewServingTLSConfig returns a tls.Config for an http.Server that
// authenticates clients with [X509] or [RequestHeader]: it asks clients
// for a certificate without requiring one, and leaves verification to the
// authenticators (which verify each chain once, then cache the result),
// so that a request with a certificate that does not verify gets a 401
// Status rather than a failed handshake. The certificate, key and CA
// files are read again when they change on disk.
func NewServingTLSConfig(files ServingFiles) (*tls.Config, error) {
	kp := &keyPairFile{certFile: files.CertFile, keyFile: files.KeyFile}
	if err := kp.load(); err != nil {
		return nil, err
	}
	base := &tls.Config{
		MinVersion:     tls.VersionTLS12,
		ClientAuth:     tls.RequestClientCert,
		GetCertificate: kp.get,
		NextProtos:     []string{"h2", "http/1.1"},
	}
	if len(files.ClientCAs) == 0 {
		return base, nil
	}
	cas := files.ClientCAs
	cfg := base.Clone()
	cfg.GetConfigForClient = func(*tls.ClientHelloInfo) (*tls.Config, error) {
		c := base.Clone()
		c.ClientCAs = x509.NewCertPool()
		for _, f := range cas {
			for _, cert := range f.Certificates() {
				c.ClientCAs.AddCert(cert)
			}
		}
		return c, nil
	}
	return cfg, nil
}
