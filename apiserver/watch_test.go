package apiserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/storage/memory"
)

type watchEvent struct {
	Type   string `json:"type"`
	Object struct {
		Kind     string `json:"kind"`
		Code     int    `json:"code"`
		Reason   string `json:"reason"`
		Metadata struct {
			Name            string            `json:"name"`
			ResourceVersion string            `json:"resourceVersion"`
			Annotations     map[string]string `json:"annotations"`
		} `json:"metadata"`
	} `json:"object"`
}

// openWatch starts a watch and returns a function reading the next event.
func openWatch(t *testing.T, ts *httptest.Server, query string) func() watchEvent {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+widgetsPath+"?watch=1&"+query, nil)
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("watch: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	return func() watchEvent {
		t.Helper()
		select {
		case l, ok := <-lines:
			if !ok {
				return watchEvent{Type: "CLOSED"}
			}
			var e watchEvent
			if err := json.Unmarshal([]byte(l), &e); err != nil {
				t.Fatalf("event %q: %v", l, err)
			}
			return e
		case <-time.After(5 * time.Second):
			t.Fatal("no watch event within 5s")
			return watchEvent{}
		}
	}
}

func TestWatch(t *testing.T) {
	ts := newTestServer(t)
	a := createWidget(t, ts, "a", `{"color":"red"}`)

	t.Run("rv unset sends the current state first", func(t *testing.T) {
		next := openWatch(t, ts, "")
		if e := next(); e.Type != "ADDED" || e.Object.Metadata.Name != "a" || e.Object.Metadata.ResourceVersion != a.ResourceVersion {
			t.Fatalf("first event %+v", e)
		}
		b := createWidget(t, ts, "b", "")
		if e := next(); e.Type != "ADDED" || e.Object.Metadata.Name != "b" || e.Object.Metadata.ResourceVersion != b.ResourceVersion {
			t.Fatalf("live event %+v", e)
		}
	})

	t.Run("rv=N sends exactly the changes after N", func(t *testing.T) {
		next := openWatch(t, ts, "resourceVersion="+a.ResourceVersion)
		if e := next(); e.Type != "ADDED" || e.Object.Metadata.Name != "b" {
			t.Fatalf("first event %+v", e)
		}
		r := do(t, ts, "PATCH", widgetsPath+"/a", "application/merge-patch+json", `{"spec":{"color":"blue"}}`)
		if e := next(); e.Type != "MODIFIED" || e.Object.Metadata.Name != "a" || e.Object.Metadata.ResourceVersion != decodeWidget(t, r).ResourceVersion {
			t.Fatalf("modified event %+v", e)
		}
		d := do(t, ts, "DELETE", widgetsPath+"/b", "", "")
		if d.code != 200 {
			t.Fatal(d.code)
		}
		if e := next(); e.Type != "DELETED" || e.Object.Metadata.Name != "b" {
			t.Fatalf("deleted event %+v", e)
		}
	})

	t.Run("selectors turn transitions into ADDED and DELETED", func(t *testing.T) {
		next := openWatch(t, ts, "fieldSelector=spec.color%3Dgreen&resourceVersion="+a.ResourceVersion)
		do(t, ts, "PATCH", widgetsPath+"/a", "application/merge-patch+json", `{"spec":{"color":"green"}}`)
		if e := next(); e.Type != "ADDED" || e.Object.Metadata.Name != "a" {
			t.Fatalf("entering event %+v", e)
		}
		do(t, ts, "PATCH", widgetsPath+"/a", "application/merge-patch+json", `{"spec":{"color":"red"}}`)
		if e := next(); e.Type != "DELETED" || e.Object.Metadata.Name != "a" {
			t.Fatalf("leaving event %+v", e)
		}
	})

	t.Run("sendInitialEvents ends with the annotated bookmark", func(t *testing.T) {
		next := openWatch(t, ts, "sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true")
		if e := next(); e.Type != "ADDED" || e.Object.Metadata.Name != "a" {
			t.Fatalf("initial event %+v", e)
		}
		e := next()
		if e.Type != "BOOKMARK" || e.Object.Metadata.Annotations["k8s.io/initial-events-end"] != "true" || e.Object.Metadata.ResourceVersion == "" {
			t.Fatalf("bookmark %+v", e)
		}
	})

	t.Run("timeoutSeconds ends the stream", func(t *testing.T) {
		next := openWatch(t, ts, "timeoutSeconds=1&resourceVersion="+a.ResourceVersion)
		for i := 0; i < 10; i++ {
			if e := next(); e.Type == "CLOSED" {
				return
			}
		}
		t.Fatal("stream did not end")
	})

	t.Run("a named watch sees only that object", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+widgetsPath+"/a?watch=true&timeoutSeconds=1", nil)
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		createWidget(t, ts, "c", "")
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if !strings.Contains(sc.Text(), `"name":"a"`) {
				t.Errorf("event for another object: %s", sc.Text())
			}
		}
	})
}

func TestWatchTooOldResourceVersion(t *testing.T) {
	srv := apiserver.New(apiserver.Options{Storage: memory.New(memory.Options{HistoryWindow: 2}),
		WatchCache: apiserver.WatchCacheOptions{EventWindow: 2}})
	srv.Register(widgetKind())
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	for i := 0; i < 5; i++ {
		createWidget(t, ts, "w"+string(rune('a'+i)), "")
	}
	// A consistent list waits for the cache to catch up with the store.
	if n := countItems(t, do(t, ts, "GET", widgetsPath, "", "")); n != 5 {
		t.Fatalf("%d widgets", n)
	}
	next := openWatch(t, ts, "resourceVersion=2")
	e := next()
	if e.Type != "ERROR" || e.Object.Kind != "Status" || e.Object.Code != 410 || e.Object.Reason != "Expired" {
		t.Fatalf("event %+v", e)
	}
	if e := next(); e.Type != "CLOSED" {
		t.Errorf("stream not closed after the error: %+v", e)
	}
}
