package apiserver_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/apiserver"
)

// tableWatchServer serves Widgets with printer columns (Name, Color,
// Replicas, Ready, Age) and frequent bookmarks.
func tableWatchServer(t *testing.T) *httpTestServer {
	t.Helper()
	k := widgetKind()
	k.PrinterColumns = []apiserver.PrinterColumn{
		{Name: "Color", Type: "string", JSONPath: ".spec.color"},
		{Name: "Replicas", Type: "integer", JSONPath: ".spec.replicas"},
		{Name: "Ready", Type: "integer", JSONPath: ".status.readyReplicas"},
		{Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp"},
	}
	srv := apiserver.New(apiserver.Options{WatchCache: apiserver.WatchCacheOptions{BookmarkInterval: 50 * time.Millisecond}})
	srv.Register(k)
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	t.Cleanup(srv.Close)
	return &httpTestServer{ts}
}

// normalizeEvent turns a watch event of a Table stream into what does
// not change from run to run: columnDefinitions as their names, uids,
// resourceVersions, timestamps and managedFields as placeholders, ages
// as "AGE".
func normalizeEvent(t *testing.T, line string) any {
	t.Helper()
	var ev map[string]any
	if err := json.Unmarshal([]byte(line), &ev); err != nil {
		t.Fatalf("event %s: %v", line, err)
	}
	return normalizeValue(ev)
}

func normalizeValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			switch k {
			case "uid", "resourceVersion", "creationTimestamp", "managedFields":
				x[k] = strings.ToUpper(k)
			case "columnDefinitions":
				if cols, ok := e.([]any); ok {
					names := []any{}
					for _, c := range cols {
						if m, ok := c.(map[string]any); ok {
							c = m["name"]
						}
						names = append(names, c)
					}
					x[k] = names
				}
			case "cells":
				cells := e.([]any)
				if s, ok := cells[len(cells)-1].(string); ok && s != "" {
					cells[len(cells)-1] = "AGE"
				}
			default:
				x[k] = normalizeValue(e)
			}
		}
	case []any:
		for i := range x {
			x[i] = normalizeValue(x[i])
		}
	}
	return v
}

// TestWatchListTable: a watch-list stream asking for Tables sends what
// kube-apiserver v1.37 sends (events taken from the reference, with the
// same normalization): a one-row Table per object, the column
// definitions in the first event only, and the BOOKMARK that ends the
// initial events as a Table whose row has empty cells and, whatever
// includeObject says, the bookmark's metadata with the annotation
// (its object for includeObject=Object). The stream's media type is
// application/json.
func TestWatchListTable(t *testing.T) {
	const (
		cols     = `["Name","Color","Replicas","Ready","Age"]`
		partialA = `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"a","namespace":"default","uid":"UID","resourceVersion":"RESOURCEVERSION","generation":1,"creationTimestamp":"CREATIONTIMESTAMP","managedFields":"MANAGEDFIELDS"}}`
		partialB = `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"b","namespace":"default","uid":"UID","resourceVersion":"RESOURCEVERSION","generation":1,"creationTimestamp":"CREATIONTIMESTAMP","managedFields":"MANAGEDFIELDS"}}`
		endMeta  = `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"RESOURCEVERSION","annotations":{"k8s.io/initial-events-end":"true"}}}`
	)
	table := func(typ, cols, cells, object string) string {
		return `{"type":"` + typ + `","object":{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"RESOURCEVERSION"},` +
			`"columnDefinitions":` + cols + `,"rows":[{"cells":` + cells + `,"object":` + object + `}]}}`
	}
	ts := tableWatchServer(t)
	createWidget(t, ts.Server, "a", `{"color":"red","replicas":2}`)
	createWidget(t, ts.Server, "b", `{"color":"blue"}`)
	for _, tc := range []struct {
		include string
		want    []string
	}{
		{"", []string{
			table("ADDED", cols, `["a","red",2,null,"AGE"]`, partialA),
			table("ADDED", "null", `["b","blue",null,null,"AGE"]`, partialB),
			table("BOOKMARK", "null", `["",null,null,null,null]`, endMeta),
		}},
		{"None", []string{
			table("ADDED", cols, `["a","red",2,null,"AGE"]`, "null"),
			table("ADDED", "null", `["b","blue",null,null,"AGE"]`, "null"),
			table("BOOKMARK", "null", `["",null,null,null,null]`, endMeta),
		}},
		{"Object", []string{
			table("ADDED", cols, `["a","red",2,null,"AGE"]`, `{"kind":"Widget","apiVersion":"stable.example.com/v1","metadata":{"name":"a","namespace":"default","uid":"UID","resourceVersion":"RESOURCEVERSION","generation":1,"creationTimestamp":"CREATIONTIMESTAMP","managedFields":"MANAGEDFIELDS"},"spec":{"replicas":2,"color":"red"},"status":{}}`),
			table("ADDED", "null", `["b","blue",null,null,"AGE"]`, `{"kind":"Widget","apiVersion":"stable.example.com/v1","metadata":{"name":"b","namespace":"default","uid":"UID","resourceVersion":"RESOURCEVERSION","generation":1,"creationTimestamp":"CREATIONTIMESTAMP","managedFields":"MANAGEDFIELDS"},"spec":{"color":"blue"},"status":{}}`),
			table("BOOKMARK", "null", `["",null,null,null,null]`, `{"kind":"Widget","apiVersion":"stable.example.com/v1","metadata":{"resourceVersion":"RESOURCEVERSION","annotations":{"k8s.io/initial-events-end":"true"}}}`),
		}},
	} {
		t.Run("includeObject="+tc.include, func(t *testing.T) {
			q := "watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=5"
			if tc.include != "" {
				q += "&includeObject=" + tc.include
			}
			resp := openTableWatch(t, ts, q)
			sc := bufio.NewScanner(resp.Body)
			sc.Buffer(nil, 1<<20)
			for i, want := range tc.want {
				if !sc.Scan() {
					t.Fatalf("event %d: %v", i, sc.Err())
				}
				if diff := cmp.Diff(normalizeEvent(t, want), normalizeEvent(t, sc.Text())); diff != "" {
					t.Errorf("event %d (-want +got):\n%s", i, diff)
				}
			}
		})
	}
}

// TestWatchTableBookmarks: the periodic bookmarks of a Table stream are
// Tables too, the first with the column definitions when nothing came
// before, and without a row object for includeObject=None, as
// kube-apiserver sends them.
func TestWatchTableBookmarks(t *testing.T) {
	ts := tableWatchServer(t)
	a := createWidget(t, ts.Server, "a", "")
	resp := openTableWatch(t, ts, "watch=1&allowWatchBookmarks=true&includeObject=None&timeoutSeconds=5&resourceVersion="+a.ResourceVersion)
	sc := bufio.NewScanner(resp.Body)
	for i, cols := range []string{`["Name","Color","Replicas","Ready","Age"]`, "null"} {
		if !sc.Scan() {
			t.Fatalf("event %d: %v", i, sc.Err())
		}
		want := `{"type":"BOOKMARK","object":{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"RESOURCEVERSION"},` +
			`"columnDefinitions":` + cols + `,"rows":[{"cells":["",null,null,null,null],"object":null}]}}`
		if diff := cmp.Diff(normalizeEvent(t, want), normalizeEvent(t, sc.Text())); diff != "" {
			t.Errorf("event %d (-want +got):\n%s", i, diff)
		}
	}
}

// openTableWatch opens a Table watch of the widgets and checks its media
// type, closed with the test.
func openTableWatch(t *testing.T, ts *httpTestServer, query string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("GET", ts.URL+widgetsPath+"?"+query, nil)
	req.Header.Set("Accept", tableAccept)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("watch: %d, Content-Type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	return resp
}
