package apiserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/apiserver"
)

// TestBookmarkObjectIsMinimal checks that a BOOKMARK carries an object of
// the watched kind whose only content is kind, apiVersion and
// metadata.resourceVersion, plus the initial-events-end annotation on the
// bookmark that ends the initial events: no empty spec or status.
func TestBookmarkObjectIsMinimal(t *testing.T) {
	srv := apiserver.New(apiserver.Options{WatchCache: apiserver.WatchCacheOptions{BookmarkInterval: 50 * time.Millisecond}})
	srv.Register(widgetKind())
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	a := createWidget(t, ts, "a", `{"color":"red"}`)

	tests := []struct {
		name, query string
		annotations map[string]any
	}{
		{"initial events end", "sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true",
			map[string]any{"k8s.io/initial-events-end": "true"}},
		{"periodic", "resourceVersion=" + a.ResourceVersion + "&allowWatchBookmarks=true", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obj := firstBookmark(t, ts, tc.query)
			if got := keys(obj); got != "apiVersion,kind,metadata" {
				t.Errorf("bookmark object has %s, want apiVersion,kind,metadata: %v", got, obj)
			}
			if obj["kind"] != "Widget" || obj["apiVersion"] != "stable.example.com/v1" {
				t.Errorf("bookmark object is a %v %v, want a stable.example.com/v1 Widget", obj["apiVersion"], obj["kind"])
			}
			md, _ := obj["metadata"].(map[string]any)
			want := "resourceVersion"
			if tc.annotations != nil {
				want = "annotations,resourceVersion"
			}
			if got := keys(md); got != want {
				t.Errorf("bookmark metadata has %s, want %s: %v", got, want, md)
			}
			if rv, _ := md["resourceVersion"].(string); rv == "" || rv == "0" {
				t.Errorf("bookmark resourceVersion %q", rv)
			}
			if tc.annotations != nil {
				a, _ := md["annotations"].(map[string]any)
				if len(a) != 1 || a["k8s.io/initial-events-end"] != "true" {
					t.Errorf("bookmark annotations %v, want %v", a, tc.annotations)
				}
			}
		})
	}
}

// firstBookmark watches widgets and returns the object of the first
// BOOKMARK event, decoded as generic JSON.
func firstBookmark(t *testing.T, ts *httptest.Server, query string) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+widgetsPath+"?watch=1&"+query, nil)
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		var e struct {
			Type   string         `json:"type"`
			Object map[string]any `json:"object"`
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("event %s: %v", sc.Bytes(), err)
		}
		if e.Type == "BOOKMARK" {
			return e.Object
		}
	}
	t.Fatalf("no BOOKMARK: %v", sc.Err())
	return nil
}

func keys(m map[string]any) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, ",")
}
