package responsewriters

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/status"
)

func request(acceptEncoding string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	if acceptEncoding != "" {
		r.Header.Set("Accept-Encoding", acceptEncoding)
	}
	return r
}

// TestWrite checks when a body goes out gzipped: above GzipThreshold,
// to a client that names gzip; every other body with its length.
func TestWrite(t *testing.T) {
	var b Bodies
	small := bytes.Repeat([]byte("a"), GzipThreshold)
	large := bytes.Repeat([]byte("a"), GzipThreshold+1)
	for _, tc := range []struct {
		name           string
		acceptEncoding string
		body           []byte
		gzipped        bool
	}{
		{"small", "gzip", small, false},
		{"large without gzip", "", large, false},
		{"large, gzip among others", "deflate, gzip;q=0.5", large, false},
		{"large", "br, gzip", large, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			b.Write(w, request(tc.acceptEncoding), http.StatusCreated, "application/json", tc.body)
			if w.Code != http.StatusCreated || w.Header().Get("Content-Type") != "application/json" {
				t.Fatalf("code %d, Content-Type %q", w.Code, w.Header().Get("Content-Type"))
			}
			got := w.Body.Bytes()
			if tc.gzipped {
				if w.Header().Get("Content-Encoding") != "gzip" || w.Header().Get("Vary") != "Accept-Encoding" {
					t.Fatalf("headers %v, want gzip", w.Header())
				}
				zr, err := gzip.NewReader(w.Body)
				if err != nil {
					t.Fatal(err)
				}
				if got, err = io.ReadAll(zr); err != nil {
					t.Fatal(err)
				}
			} else if cl := w.Header().Get("Content-Length"); cl != strconv.Itoa(len(tc.body)) {
				t.Errorf("Content-Length %q, want %d", cl, len(tc.body))
			}
			if !bytes.Equal(got, tc.body) {
				t.Errorf("body of %d bytes, want %d", len(got), len(tc.body))
			}
		})
	}
}

// TestListBody checks that a list of a known size larger than a chunk
// is written a chunk at a time with its Content-Length, and that one of
// an unknown size goes out chunked.
func TestListBody(t *testing.T) {
	var b Bodies
	item := bytes.Repeat([]byte("x"), 64<<10)
	items := 2 * StreamChunk / len(item)
	for _, known := range []bool{true, false} {
		size := -1
		if known {
			size = items * len(item)
		}
		w := httptest.NewRecorder()
		body, buf := b.NewList(w, request(""), "application/json", size)
		for range items {
			var ok bool
			if buf, ok = body.Flush(append(buf, item...)); !ok {
				t.Fatal("client gone")
			}
		}
		if !w.Flushed && w.Body.Len() == 0 {
			t.Errorf("known size %v: nothing written before the end", known)
		}
		body.Finish(buf)
		if w.Body.Len() != items*len(item) {
			t.Errorf("known size %v: %d bytes written, want %d", known, w.Body.Len(), items*len(item))
		}
		if cl := w.Header().Get("Content-Length"); known != (cl != "") {
			t.Errorf("known size %v: Content-Length %q", known, cl)
		}
	}
}

// TestWriteStatus checks that an error is written as a Status with its
// code and Retry-After, in JSON when the client accepts nothing known.
func TestWriteStatus(t *testing.T) {
	r := request("")
	r.Header.Set("Accept", "application/x-unknown")
	w := httptest.NewRecorder()
	WriteStatus(w, r, codec.NewRegistry(codec.JSON{}), nil, status.TooManyRequests("slow down", 3))
	if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "3" || w.Header().Get("Content-Type") != codec.MediaTypeJSON {
		t.Errorf("code %d, headers %v", w.Code, w.Header())
	}
	w = httptest.NewRecorder()
	WriteStatus(w, request(""), codec.NewRegistry(codec.JSON{}), nil, errors.New("plain"))
	if w.Code != http.StatusInternalServerError {
		t.Errorf("a plain error: code %d, want 500", w.Code)
	}
}
