package eventsv1_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/kinds/corev1"
	"github.com/kapi-dev/kapi/kinds/eventsv1"
)

const (
	coreEvents   = "/api/v1/namespaces/default/events"
	eventsEvents = "/apis/events.k8s.io/v1/namespaces/default/events"
)

// TestSharedStorage checks that the two Event APIs serve one stored
// object, as kube-apiserver's do: written through either, it is read,
// updated, listed, selected, watched and deleted through the other, with
// kube's field mapping, in every storage encoding.
func TestSharedStorage(t *testing.T) {
	for _, mt := range []string{"application/json", "application/vnd.kubernetes.protobuf", "application/cbor"} {
		t.Run(mt, func(t *testing.T) {
			s := apiserver.New(apiserver.Options{StorageMediaType: mt})
			s.Register(corev1.EventKind()).Register(eventsv1.EventKind())
			if err := s.Err(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(s.Close)
			ts := httptest.NewServer(s)
			t.Cleanup(ts.Close) // after the watch's body is closed
			testSharedStorage(t, ts.URL)
		})
	}
}

func testSharedStorage(t *testing.T, base string) {
	// Written through the core API, read through events.k8s.io.
	legacy := `{"apiVersion":"v1","kind":"Event","metadata":{"name":"w.1"},
		"involvedObject":{"kind":"Widget","namespace":"default","name":"w"},
		"reason":"Pulled","message":"pulled it","type":"Normal","count":2,
		"source":{"component":"widgets","host":"node-1"},
		"firstTimestamp":"2026-01-02T03:04:05Z","lastTimestamp":"2026-01-02T04:04:05Z"}`
	created := call(t, "POST", base+coreEvents, legacy, http.StatusCreated)
	got := call(t, "GET", base+eventsEvents+"/w.1", "", http.StatusOK)
	for path, want := range map[string]any{
		"apiVersion": "events.k8s.io/v1", "note": "pulled it", "reason": "Pulled", "deprecatedCount": 2.0,
		"regarding.name": "w", "deprecatedSource.host": "node-1",
		"deprecatedFirstTimestamp": "2026-01-02T03:04:05Z", "deprecatedLastTimestamp": "2026-01-02T04:04:05Z",
		"metadata.resourceVersion": at(created, "metadata.resourceVersion"), "metadata.uid": at(created, "metadata.uid"),
	} {
		if v := at(got, path); v != want {
			t.Errorf("events.k8s.io %s = %v, want %v", path, v, want)
		}
	}
	for _, f := range []string{"message", "involvedObject", "count", "source"} {
		if v := at(got, f); v != nil {
			t.Errorf("events.k8s.io Event has the core field %s: %v", f, v)
		}
	}

	// Updated through events.k8s.io (a series and a label), read through
	// the core API.
	got["series"] = map[string]any{"count": 3, "lastObservedTime": "2026-01-02T05:04:05.000000Z"}
	got["metadata"].(map[string]any)["labels"] = map[string]any{"seen": "twice"}
	body, _ := json.Marshal(got)
	updated := call(t, "PUT", base+eventsEvents+"/w.1", string(body), http.StatusOK)
	core := call(t, "GET", base+coreEvents+"/w.1", "", http.StatusOK)
	for path, want := range map[string]any{
		"series.count": 3.0, "metadata.labels.seen": "twice", "message": "pulled it", "count": 2.0,
		"metadata.resourceVersion": at(updated, "metadata.resourceVersion"),
	} {
		if v := at(core, path); v != want {
			t.Errorf("core %s = %v, want %v", path, v, want)
		}
	}
	// What kube forbids changing through events.k8s.io stays refused.
	got["note"] = "changed"
	got["metadata"].(map[string]any)["resourceVersion"] = at(updated, "metadata.resourceVersion")
	body, _ = json.Marshal(got)
	if st := call(t, "PUT", base+eventsEvents+"/w.1", string(body), http.StatusUnprocessableEntity); !strings.Contains(at(st, "message").(string), "message: Invalid value") {
		t.Errorf("changing the note: %v", st["message"])
	}

	// Written through events.k8s.io, read through the core API, and the
	// name is one object's in both.
	list := call(t, "GET", base+eventsEvents, "", http.StatusOK)
	w := startWatch(t, base+eventsEvents+"?watch=true&resourceVersion="+at(list, "metadata.resourceVersion").(string))
	newer := `{"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"w.2"},
		"eventTime":"2026-01-02T03:04:05.000001Z","reportingController":"example.com/widgets","reportingInstance":"widgets-1",
		"action":"Scale","reason":"Scaled","note":"to 3","type":"Normal",
		"regarding":{"kind":"Widget","namespace":"default","name":"w"}}`
	call(t, "POST", base+eventsEvents, newer, http.StatusCreated)
	core = call(t, "GET", base+coreEvents+"/w.2", "", http.StatusOK)
	for path, want := range map[string]any{
		"apiVersion": "v1", "message": "to 3", "reportingComponent": "example.com/widgets",
		"involvedObject.name": "w", "eventTime": "2026-01-02T03:04:05.000001Z",
	} {
		if v := at(core, path); v != want {
			t.Errorf("core %s = %v, want %v", path, v, want)
		}
	}
	call(t, "POST", base+coreEvents, strings.Replace(legacy, "w.1", "w.2", 1), http.StatusConflict)
	sel := call(t, "GET", base+eventsEvents+"?fieldSelector=regarding.name%3Dw,reason%3DPulled", "", http.StatusOK)
	if items := sel["items"].([]any); len(items) != 1 || at(items[0].(map[string]any), "metadata.name") != "w.1" {
		t.Errorf("field selector on events.k8s.io chose %v", items)
	}

	// Deleted through the core API: gone from both, and the events.k8s.io
	// watch saw the create and the delete.
	call(t, "DELETE", base+coreEvents+"/w.2", "", http.StatusOK)
	call(t, "GET", base+eventsEvents+"/w.2", "", http.StatusNotFound)
	for _, want := range []string{"ADDED", "DELETED"} {
		ev := w.next(t)
		if ev.Type != want || at(ev.Object, "metadata.name") != "w.2" || at(ev.Object, "apiVersion") != "events.k8s.io/v1" || at(ev.Object, "note") != "to 3" {
			t.Errorf("watch event %s %v, want %s of w.2 as events.k8s.io/v1", ev.Type, ev.Object, want)
		}
	}
}

// call sends a JSON request and decodes the JSON answer, failing unless
// its status is code.
func call(t *testing.T, method, url, body string, code int) map[string]any {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != code {
		t.Fatalf("%s %s: %d %s, want %d", method, url, resp.StatusCode, b, code)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s %s: %v in %s", method, url, err, b)
	}
	return out
}

// at returns the value at a dotted path in a JSON object, nil if absent.
func at(obj map[string]any, path string) any {
	var v any = obj
	for _, p := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

type watchEvent struct {
	Type   string         `json:"type"`
	Object map[string]any `json:"object"`
}

// watcher reads a JSON watch stream, one event at a time.
type watcher struct{ events chan watchEvent }

func startWatch(t *testing.T, url string) *watcher {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("watch: %s", resp.Status)
	}
	w := &watcher{events: make(chan watchEvent, 16)}
	go func() {
		defer close(w.events)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var ev watchEvent
			if json.Unmarshal(bytes.TrimSpace(sc.Bytes()), &ev) == nil {
				w.events <- ev
			}
		}
	}()
	return w
}

func (w *watcher) next(t *testing.T) watchEvent {
	t.Helper()
	select {
	case ev, ok := <-w.events:
		if !ok {
			t.Fatal("the watch ended")
		}
		return ev
	case <-time.After(15 * time.Second):
		t.Fatal("no watch event within 15s")
	}
	return watchEvent{}
}
