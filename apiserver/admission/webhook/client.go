package webhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	ar "github.com/kapi-dev/kapi/kinds/admissionregistrationv1"
)

// ServiceResolver maps a webhook's Service to the address (host:port) it
// is dialed at. The URL, and the name its certificate must be valid for,
// stay https://NAME.NAMESPACE.svc:PORT, as kube calls it.
type ServiceResolver func(ctx context.Context, namespace, name string, port int32) (hostport string, err error)

// DefaultMaxResponseBytes bounds a webhook's answer. kube reads it whole;
// kapi stops at a size that still lets a patch replace an object of the
// largest size a request body may have (3 MiB, base64-encoded).
const DefaultMaxResponseBytes = 16 << 20

// clients keeps one http.Client per distinct trust (CA bundle and server
// name), so that connections to a webhook are reused across calls.
type clients struct {
	roots   *x509.CertPool // nil: system roots
	resolve ServiceResolver
	mu      sync.Mutex
	byKey   map[string]*http.Client
}

func (c *clients) get(caBundle []byte, serverName string) (*http.Client, error) {
	key := serverName + "\x00" + string(caBundle)
	c.mu.Lock()
	defer c.mu.Unlock()
	if cl := c.byKey[key]; cl != nil {
		return cl, nil
	}
	tc := &tls.Config{RootCAs: c.roots, ServerName: serverName, MinVersion: tls.VersionTLS12}
	if len(caBundle) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(caBundle) {
			return nil, errors.New("unable to load root certificates: unable to parse bytes as PEM block")
		}
		tc.RootCAs = pool
	}
	tr := &http.Transport{
		Proxy:               nil,
		DialContext:         c.dial,
		TLSClientConfig:     tc,
		TLSHandshakeTimeout: 10 * time.Second,
		MaxIdleConnsPerHost: 25,
		IdleConnTimeout:     90 * time.Second,
		ForceAttemptHTTP2:   true,
	}
	// Redirects are followed as Go's client follows them (at most 10,
	// 307 and 308 keeping the review), as kube-apiserver's REST client
	// for webhooks does.
	cl := &http.Client{Transport: tr}
	if c.byKey == nil {
		c.byKey = map[string]*http.Client{}
	}
	c.byKey[key] = cl
	return cl, nil
}

// dial connects to addr, resolving a Service's NAME.NAMESPACE.svc name
// with the resolver when there is one, as kube dials a Service webhook.
func (c *clients) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	host, port, err := net.SplitHostPort(addr)
	if err != nil || c.resolve == nil || !strings.HasSuffix(host, ".svc") {
		return d.DialContext(ctx, network, addr)
	}
	name, ns, ok := strings.Cut(strings.TrimSuffix(host, ".svc"), ".")
	p, perr := strconv.Atoi(port)
	if !ok || perr != nil {
		return d.DialContext(ctx, network, addr)
	}
	to, err := c.resolve(ctx, ns, name, int32(p))
	if err != nil {
		return nil, err
	}
	return d.DialContext(ctx, network, to)
}

// endpoint is where a webhook is called: its URL, and the server name
// its certificate must be valid for ("" for the URL's host).
func endpoint(cc *ar.WebhookClientConfig) (*url.URL, string, error) {
	if cc.URL != nil {
		u, err := url.Parse(*cc.URL)
		if err != nil {
			return nil, "", err
		}
		u.Path, u.RawPath = cleanPath(u.Path), ""
		return u, "", nil
	}
	s := cc.Service
	if s == nil {
		return nil, "", errors.New("webhook has neither url nor service in its clientConfig")
	}
	port := int32(443)
	if s.Port != nil {
		port = *s.Port
	}
	serverName := s.Name + "." + s.Namespace + ".svc"
	u := &url.URL{Scheme: "https", Host: net.JoinHostPort(serverName, strconv.Itoa(int(port)))}
	p := ""
	if s.Path != nil {
		p = *s.Path
	}
	u.Path = cleanPath(p)
	return u, serverName, nil
}

// cleanPath is the path a webhook is called at: kube's REST client
// joins the configured path onto "/", so "//mutate" (as envtest writes a
// Service path into a URL), "mutate/" and "" are called as "/mutate",
// "/mutate" and "/".
func cleanPath(p string) string { return path.Join("/", p) }

// post sends body to u and decodes the answer into out, the way
// client-go's REST client used by kube does: a timeout parameter
// telling the webhook how long it has, JSON both ways, and a Status body
// of a failed answer as its error.
func post(ctx context.Context, cl *http.Client, u *url.URL, body []byte, maxBytes int64, out any) error {
	target := *u
	if dl, ok := ctx.Deadline(); ok {
		if d := time.Until(dl); d > 0 {
			if t := d.Truncate(time.Second); t != d {
				d = t + time.Second
			}
			q := target.Query()
			q.Set("timeout", d.String())
			target.RawQuery = q.Encode()
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target.String(), bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, */*")
	req.Header.Set("User-Agent", "kube-apiserver-admission")
	resp, err := cl.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBytes+1))
	if ctx.Err() != nil {
		// The deadline passed while the answer came: a webhook that
		// gave up as its request was cancelled answers nothing useful,
		// and the call failed by its timeout, as client-go reports it.
		return &url.Error{Op: "Post", URL: target.String(), Err: ctx.Err()}
	}
	if err != nil {
		return fmt.Errorf("unexpected error when reading response body. Please retry. Original error: %w", err)
	}
	if int64(len(data)) > maxBytes {
		return fmt.Errorf("the webhook's response is larger than %d bytes", maxBytes)
	}
	if resp.StatusCode < http.StatusOK || resp.StatusCode > http.StatusPartialContent {
		return responseError(resp, data)
	}
	return decodeReview(data, out)
}

// typeMeta is what kube's JSON serializer reads first of a body; its
// type appears in kube's message for a body that is not an object.
type typeMeta = struct {
	APIVersion string "json:\"apiVersion,omitempty\""
	Kind       string "json:\"kind,omitempty\""
}

// decodeReview decodes a webhook's answer, failing as kube's JSON
// serializer fails: a body that is not JSON is read as a YAML string.
func decodeReview(data []byte, out any) error {
	var tm typeMeta
	if !json.Valid(data) {
		// kube converts YAML to JSON first: text that is not JSON is
		// mostly a YAML string.
		s, _ := json.Marshal(string(data))
		data = s
	}
	if err := json.Unmarshal(data, &tm); err != nil {
		return fmt.Errorf("couldn't get version/kind; json parse error: %w", err)
	}
	// A missing apiVersion or kind is no decoding error: the check of
	// the answer's kind reports it, as kube's does.
	return json.Unmarshal(data, out)
}

// statusError is a non-2xx answer: client-go makes it a Status error
// with the answer's code (or its Status body's), which kube reports in
// its metrics.
type statusError struct {
	code    int
	message string
}

func (e *statusError) Error() string { return e.message }

// responseError is the error of a non-2xx answer, worded as client-go
// words it for a body that is not a Status.
func responseError(resp *http.Response, body []byte) error {
	var st struct {
		Kind    string `json:"kind"`
		Message string `json:"message"`
		Code    int    `json:"code"`
	}
	if json.Unmarshal(body, &st) == nil && st.Kind == "Status" {
		code := st.Code
		if code == 0 {
			code = resp.StatusCode
		}
		return &statusError{code, st.Message}
	}
	msg := strings.TrimSpace(string(body))
	if len(msg) > 1024 {
		msg = msg[:1024]
	}
	code := resp.StatusCode
	switch {
	case code == http.StatusNotFound && msg == "":
		return &statusError{code, "the server could not find the requested resource"}
	case code >= 500 || msg != "":
		return &statusError{code, fmt.Sprintf("an error on the server (%q) has prevented the request from succeeding", msg)}
	default:
		return &statusError{code, fmt.Sprintf("the server responded with the status code %d but did not return more information", code)}
	}
}
