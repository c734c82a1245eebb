package apiserver_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestGzip checks kube-apiserver's response compression: gzip when the
// client accepts it and the body is over 128 KiB, with Vary; identity
// otherwise; never for watches.
func TestGzip(t *testing.T) {
	ts := newTestServer(t)
	pad := strings.Repeat("x", 4<<10)
	for i := 0; i < 70; i++ { // 70 widgets of over 4 KiB: a list of about 300 KiB, written in chunks
		r := do(t, ts, "POST", widgetsPath, "application/json", fmt.Sprintf(
			`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"w%02d","annotations":{"pad":%q}}}`, i, pad))
		if r.code != http.StatusCreated {
			t.Fatalf("%d %s", r.code, r.body)
		}
	}
	big := strings.Repeat("y", 140<<10)
	otherNS := strings.Replace(widgetsPath, "/default/", "/other/", 1)
	if r := do(t, ts, "POST", otherNS, "application/json",
		`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"big","annotations":{"pad":"`+big+`"}}}`); r.code != http.StatusCreated {
		t.Fatalf("%d %s", r.code, r.body)
	}
	tests := []struct {
		name, path, accept, encoding string
		gzipped                      bool
	}{
		{"large JSON list", widgetsPath, "", "gzip", true},
		{"large CBOR list", widgetsPath, "application/cbor", "gzip", true},
		{"large YAML list", widgetsPath, "application/yaml", "gzip", true},
		{"gzip among others", widgetsPath, "", "deflate, gzip , br", true},
		{"large object", otherNS + "/big", "", "gzip", true},
		{"large CBOR object", otherNS + "/big", "application/cbor", "gzip", true},
		{"large list, no Accept-Encoding", widgetsPath, "", "", false},
		{"large list, other encodings", widgetsPath, "", "deflate, br", false},
		{"gzip with a quality is not the bare token", widgetsPath, "", "gzip;q=1", false},
		{"small list", widgetsPath + "?limit=1", "", "gzip", false},
		{"small object", widgetsPath + "/w00", "", "gzip", false},
		{"small CBOR object", widgetsPath + "/w00", "application/cbor", "gzip", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := doWith(t, ts, "GET", tc.path, map[string]string{"Accept": tc.accept, "Accept-Encoding": tc.encoding}, nil)
			if r.code != http.StatusOK {
				t.Fatalf("%d %s", r.code, r.body)
			}
			body := r.body
			if tc.gzipped {
				if r.header.Get("Content-Encoding") != "gzip" || r.header.Get("Vary") != "Accept-Encoding" {
					t.Fatalf("headers %v", r.header)
				}
				zr, err := gzip.NewReader(bytes.NewReader(r.body))
				if err != nil {
					t.Fatal(err)
				}
				if body, err = io.ReadAll(zr); err != nil {
					t.Fatal(err)
				}
				if len(r.body) >= len(body)/4 {
					t.Errorf("compressed %d to %d bytes", len(body), len(r.body))
				}
			} else {
				if r.header.Get("Content-Encoding") != "" || r.header.Get("Vary") != "" {
					t.Fatalf("headers %v", r.header)
				}
				if r.header.Get("Content-Length") != fmt.Sprint(len(body)) {
					t.Errorf("Content-Length %q for %d bytes", r.header.Get("Content-Length"), len(body))
				}
			}
			wantCT := tc.accept
			if wantCT == "" {
				wantCT = "application/json"
			}
			if r.header.Get("Content-Type") != wantCT {
				t.Errorf("Content-Type %q", r.header.Get("Content-Type"))
			}
			if tc.accept == "" {
				var v struct {
					Kind  string            `json:"kind"`
					Items []json.RawMessage `json:"items"`
				}
				if err := json.Unmarshal(body, &v); err != nil || v.Kind == "" {
					t.Errorf("body: %v %.100s", err, body)
				}
				if tc.path == widgetsPath && len(v.Items) != 70 {
					t.Errorf("%d items", len(v.Items))
				}
			}
		})
	}

	t.Run("watch is never compressed", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+widgetsPath+"?watch=1", nil)
		req.Header.Set("Accept-Encoding", "gzip")
		resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.Header.Get("Content-Encoding") != "" || resp.Header.Get("Vary") != "" {
			t.Fatalf("headers %v", resp.Header)
		}
		// The initial events (about 170 KiB) arrive as plain JSON lines.
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for i := 0; i < 40; i++ {
			if !sc.Scan() {
				t.Fatalf("event %d: %v", i, sc.Err())
			}
			if !json.Valid(sc.Bytes()) {
				t.Fatalf("event %d is not JSON", i)
			}
		}
	})
}
