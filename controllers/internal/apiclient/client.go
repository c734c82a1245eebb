// Package apiclient is how controllers talk to the kapi server they run
// in: plain API requests through the server's own handler, so that every
// write takes the path a client's write takes (admission, validation,
// finalizers, the watch cache) and every read is served from the watch
// cache.
package apiclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/kapi-dev/kapi/auth"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// Client sends API requests to a handler in the process.
type Client struct {
	hc *http.Client
}

// User is who the controllers' requests come from: the identity
// kube-apiserver gives its own loopback requests, a member of
// system:masters, which authorizers allow everything.
var User = auth.User{Name: "system:apiserver", Groups: []string{auth.SystemPrivilegedGroup, "system:authenticated"}}

// New returns a Client of h. Its requests carry [User] on their context,
// where the server takes it as authenticated.
func New(h http.Handler) *Client {
	return &Client{hc: &http.Client{Transport: handlerTransport{h: h}}}
}

// Object is the part of any object controllers read: its type and
// metadata.
type Object struct {
	meta.TypeMeta `json:",inline"`
	Metadata      meta.ObjectMeta `json:"metadata"`
}

// Do sends one request and returns the body of a 2xx answer; any other
// answer is returned as a *status.Error with the server's Status.
func (c *Client) Do(ctx context.Context, method, path, contentType string, body []byte) ([]byte, error) {
	resp, err := c.send(ctx, method, path, contentType, body)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		return nil, statusError(resp.StatusCode, b)
	}
	return b, nil
}

func (c *Client) send(ctx context.Context, method, path, contentType string, body []byte) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	user := User
	req, err := http.NewRequestWithContext(auth.WithUser(ctx, &user), method, "http://in-process"+path, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "kapi-controllers")
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	return c.hc.Do(req)
}

// statusError reads a Status body into an error.
func statusError(code int, body []byte) error {
	var st meta.Status
	if err := json.Unmarshal(body, &st); err != nil || st.Kind != "Status" {
		return status.New(int32(code), meta.StatusReasonUnknown, strings.TrimSpace(string(body)))
	}
	return &status.Error{Status: st}
}

// Get reads the object at path into into.
func (c *Client) Get(ctx context.Context, path string, into any) error {
	b, err := c.Do(ctx, http.MethodGet, path, "", nil)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, into)
}

// Create posts obj to the collection at path.
func (c *Client) Create(ctx context.Context, path string, obj any) error {
	b, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	_, err = c.Do(ctx, http.MethodPost, path, "application/json", b)
	return err
}

// Update puts obj at path and reads the answer back into it.
func (c *Client) Update(ctx context.Context, path string, obj any) error {
	b, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	out, err := c.Do(ctx, http.MethodPut, path, "application/json", b)
	if err != nil {
		return err
	}
	return json.Unmarshal(out, obj)
}

// MergePatch applies a JSON merge patch to the object at path.
func (c *Client) MergePatch(ctx context.Context, path string, patch any) error {
	b, err := json.Marshal(patch)
	if err != nil {
		return err
	}
	_, err = c.Do(ctx, http.MethodPatch, path, "application/merge-patch+json", b)
	return err
}

// Delete deletes the object (or, for a collection path, the objects) at
// path with the given options.
func (c *Client) Delete(ctx context.Context, path string, opts meta.DeleteOptions) error {
	opts.TypeMeta = meta.TypeMeta{Kind: "DeleteOptions", APIVersion: "meta.k8s.io/v1"}
	b, err := json.Marshal(opts)
	if err != nil {
		return err
	}
	_, err = c.Do(ctx, http.MethodDelete, path, "application/json", b)
	return err
}

// List is one page-by-page list of a collection: the items' metadata and
// the list's resourceVersion.
func (c *Client) List(ctx context.Context, path string, query url.Values) ([]Object, string, error) {
	var items []Object
	q := url.Values{}
	for k, v := range query {
		q[k] = v
	}
	q.Set("limit", "1000")
	for {
		var page struct {
			Metadata meta.ListMeta `json:"metadata"`
			Items    []Object      `json:"items"`
		}
		if err := c.Get(ctx, path+"?"+q.Encode(), &page); err != nil {
			return nil, "", err
		}
		items = append(items, page.Items...)
		if page.Metadata.Continue == "" {
			return items, page.Metadata.ResourceVersion, nil
		}
		q.Set("continue", page.Metadata.Continue)
	}
}

// Event is one watch event. Its object's metadata leaves out what no
// controller reads from a watch (managedFields, labels, annotations,
// creationTimestamp), which reading every event on the path of every
// write would decode for nothing; a controller that needs them reads the
// object.
type Event struct {
	Type   string // ADDED, MODIFIED, DELETED, BOOKMARK or ERROR
	Object Object
	// Status is the Status of an ERROR event.
	Status meta.Status
}

// Watch watches the collection at path from resourceVersion rv and sends
// its events to fn until the watch ends (ctx done, the server closed it,
// or fn returned an error). An ERROR event ends it with its Status as
// the error, such as 410 Gone for a resourceVersion too old.
func (c *Client) Watch(ctx context.Context, path, rv string, fn func(Event) error) error {
	q := url.Values{"watch": {"true"}, "resourceVersion": {rv}, "allowWatchBookmarks": {"true"}}
	resp, err := c.send(ctx, http.MethodGet, path+"?"+q.Encode(), "", nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return statusError(resp.StatusCode, b)
	}
	frames := newFrameReader(resp.Body)
	var texts watchTexts
	for {
		frame, err := frames.next()
		if err != nil {
			if errors.Is(err, io.EOF) || ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		}
		ev, err := texts.decode(frame)
		if err != nil {
			return err
		}
		if ev.Type == "ERROR" {
			return &status.Error{Status: ev.Status}
		}
		if err := fn(ev); err != nil {
			return err
		}
	}
}

// ResourceVersionOf reads a resourceVersion as a number, 0 if it is not
// one.
func ResourceVersionOf(rv string) int64 {
	n, _ := strconv.ParseInt(rv, 10, 64)
	return n
}
