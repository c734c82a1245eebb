// Package kubeconfig writes the small kubeconfig file that points kubectl and
// client-go at a kapi server. It uses the standard library only (the YAML is
// written by hand), so example servers can write ./kapi.kubeconfig without
// pulling in client-go.
//
// The file has one cluster, one user and one context, all named "kapi", and
// makes that context current:
//
//	apiVersion: v1
//	kind: Config
//	clusters:
//	- name: kapi
//	  cluster:
//	    server: "http://127.0.0.1:8080"
//	users:
//	- name: kapi
//	  user: {}
//	contexts:
//	- name: kapi
//	  context:
//	    cluster: kapi
//	    user: kapi
//	    namespace: "default"
//	current-context: kapi
package kubeconfig

import (
	"encoding/base64"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Name is the name of the cluster, user and context in the files this
// package writes.
const Name = "kapi"

// PlaceholderToken is the bearer token Write gives the user for an
// https server. client-go uses a kubeconfig user's credentials only over
// TLS, and there, when the user has none, kubectl prompts for a username on
// stdin (failing when stdin is not a terminal); a token stops the prompt.
// Servers that do not authenticate ignore it.
const PlaceholderToken = "kapi"

// Config describes the kubeconfig to write.
type Config struct {
	// Server is the server's base URL, such as "http://127.0.0.1:8080".
	Server string
	// Namespace is the context's default namespace; empty leaves it out,
	// and kubectl then uses "default".
	Namespace string
	// Token, if set, is sent as "Authorization: Bearer <token>". Empty
	// means a user with no credentials. client-go sends credentials only
	// to https servers (see PlaceholderToken).
	Token string
	// ClientCertificateData and ClientKeyData, if set, are the PEM
	// client certificate and key the user authenticates with over TLS.
	ClientCertificateData, ClientKeyData []byte
	// InsecureSkipTLSVerify turns off verification of the server's
	// certificate, for https servers with self-signed certificates.
	InsecureSkipTLSVerify bool
}

// Write writes a kubeconfig for serverURL with the given default namespace
// to path. For a plain http URL the user has no credentials. For an https
// URL it skips certificate verification (test and example servers use
// self-signed certificates) and gives the user PlaceholderToken.
func Write(path, serverURL, namespace string) error {
	c := Config{Server: serverURL, Namespace: namespace}
	if strings.HasPrefix(strings.ToLower(serverURL), "https://") {
		c.InsecureSkipTLSVerify = true
		c.Token = PlaceholderToken
	}
	return WriteConfig(path, c)
}

// WriteKubeconfig is Write.
func WriteKubeconfig(path, serverURL, namespace string) error {
	return Write(path, serverURL, namespace)
}

// WriteConfig writes c to path with mode 0600, replacing the file
// atomically so that a kubectl reading it concurrently sees the old or the
// new file, never half of one.
func WriteConfig(path string, c Config) error {
	data, err := Marshal(c)
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, ".kubeconfig-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// Marshal returns c as kubeconfig YAML.
func Marshal(c Config) ([]byte, error) {
	if c.Server == "" {
		return nil, errors.New("kubeconfig: empty server URL")
	}
	u, err := url.Parse(c.Server)
	if err != nil {
		return nil, errors.New("kubeconfig: invalid server URL: " + err.Error())
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, errors.New("kubeconfig: server URL must be http://host[:port] or https://host[:port], got " + strconv.Quote(c.Server))
	}

	var b strings.Builder
	b.WriteString("apiVersion: v1\n")
	b.WriteString("kind: Config\n")
	b.WriteString("clusters:\n")
	b.WriteString("- name: " + Name + "\n")
	b.WriteString("  cluster:\n")
	b.WriteString("    server: " + quote(c.Server) + "\n")
	if c.InsecureSkipTLSVerify {
		b.WriteString("    insecure-skip-tls-verify: true\n")
	}
	b.WriteString("users:\n")
	b.WriteString("- name: " + Name + "\n")
	if c.Token == "" && len(c.ClientCertificateData) == 0 {
		b.WriteString("  user: {}\n")
	} else {
		b.WriteString("  user:\n")
	}
	if len(c.ClientCertificateData) > 0 {
		b.WriteString("    client-certificate-data: " + base64.StdEncoding.EncodeToString(c.ClientCertificateData) + "\n")
		b.WriteString("    client-key-data: " + base64.StdEncoding.EncodeToString(c.ClientKeyData) + "\n")
	}
	if c.Token != "" {
		b.WriteString("    token: " + quote(c.Token) + "\n")
	}
	b.WriteString("contexts:\n")
	b.WriteString("- name: " + Name + "\n")
	b.WriteString("  context:\n")
	b.WriteString("    cluster: " + Name + "\n")
	b.WriteString("    user: " + Name + "\n")
	if c.Namespace != "" {
		b.WriteString("    namespace: " + quote(c.Namespace) + "\n")
	}
	b.WriteString("current-context: " + Name + "\n")
	return []byte(b.String()), nil
}

// quote returns s as a YAML double-quoted scalar. Go's quoting escapes
// (\", \\, \n, \t, \xHH, \uHHHH, \UHHHHHHHH, \a, \b, \f, \r, \v) are all
// valid YAML escapes.
func quote(s string) string {
	return strconv.Quote(s)
}
