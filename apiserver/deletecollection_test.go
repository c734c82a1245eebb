package apiserver_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/apiserver"
)

// peakWriter discards a response body, recording the live heap after a
// collection at each write: what the handler holds while it answers.
type peakWriter struct {
	header http.Header
	code   int
	body   bytes.Buffer // kept only when keep is set
	keep   bool
	n      int
	peak   uint64
}

func (w *peakWriter) Header() http.Header  { return w.header }
func (w *peakWriter) WriteHeader(code int) { w.code = code }
func (w *peakWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	w.n += len(b)
	if w.keep {
		w.body.Write(b)
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	w.peak = max(w.peak, ms.HeapAlloc)
	return len(b), nil
}

// deleteCollectionPeak creates n Cogs of about size bytes each and
// deletes them with one deletecollection, returning the handler's peak
// live heap above what it was before, and the answer.
func deleteCollectionPeak(t *testing.T, n, size int, keep bool) (uint64, *peakWriter) {
	srv := apiserver.New(apiserver.Options{})
	srv.Register(cogKind(t))
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	blob := strings.Repeat("x", size)
	for i := 0; i < n; i++ {
		rec := httptest.NewRecorder()
		body := cog(fmt.Sprintf("c%03d", i), `{"teeth":12,"extra":{"blob":"`+blob+`"}}`)
		srv.ServeHTTP(rec, httptest.NewRequest("POST", cogsPath, strings.NewReader(body)))
		if rec.Code != http.StatusCreated {
			t.Fatalf("create %d: %d %s", i, rec.Code, rec.Body.String()[:200])
		}
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.HeapAlloc
	w := &peakWriter{header: http.Header{}, keep: keep}
	srv.ServeHTTP(w, httptest.NewRequest("DELETE", cogsPath, nil))
	if w.code != http.StatusOK {
		t.Fatalf("deletecollection: %d", w.code)
	}
	runtime.GC()
	runtime.ReadMemStats(&ms)
	after := min(before, ms.HeapAlloc) // what the handler no longer holds
	if w.peak < after {
		return 0, w
	}
	return w.peak - after, w
}

// TestDeleteCollectionStreams checks that a deletecollection of many large
// objects does not hold them, or one answer holding them all, in memory:
// the handler's peak heap stays about the same for 4 times as many
// objects (it grew with their number when the answer was built whole:
// 100 objects of 2.5 MB once peaked at 1.46 GB). And the streamed answer
// is the list the whole answer was.
func TestDeleteCollectionStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the heap")
	}
	// The heap is the process's: servers and goroutines that earlier
	// tests left behind allocate too, and on a loaded machine they once
	// pushed the peak past the bound. So the measure runs in a process
	// of its own.
	if os.Getenv("KAPI_DELETECOLLECTION_CHILD") == "" {
		t.Setenv("KAPI_DELETECOLLECTION_CHILD", "1")
		out, err := exec.Command(os.Args[0], "-test.run=^TestDeleteCollectionStreams$", "-test.count=1", "-test.v").CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestDeleteCollectionStreams") {
			t.Fatalf("in a process of its own: %v\n%s", err, out)
		}
		t.Logf("in a process of its own:\n%s", out)
		return
	}
	// The slack absorbs what other goroutines of the test process
	// allocate meanwhile; a whole answer of 32 objects is 16 MiB, and
	// it was held with the decoded objects.
	const size, slack = 512 << 10, 4 << 20
	// The heap measured is live objects and garbage not yet collected.
	// With the default pacing, the collector lets garbage grow to the
	// size of the live heap, which is the stored objects: the garbage of
	// answering 32 objects could then reach what 4 times the objects
	// hold, and the peak grew with them for no object held. Collecting
	// at 10% growth keeps the peak to what the handler holds.
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	small, _ := deleteCollectionPeak(t, 8, size, false)
	large, w := deleteCollectionPeak(t, 32, size, false)
	ratio := float64(large) / float64(max(small, 1))
	t.Logf("peak heap while answering: 8 objects %.1f MiB, 32 objects %.1f MiB (answer %.1f MiB): ratio %.2f",
		float64(small)/(1<<20), float64(large)/(1<<20), float64(w.n)/(1<<20), ratio)
	if large > 2*small+slack {
		t.Errorf("the peak heap of a deletecollection grows %.1f times for 4 times the objects; a streamed answer holds one object at a time", ratio)
	}

	_, w = deleteCollectionPeak(t, 3, size, true)
	var list struct {
		Kind     string `json:"kind"`
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
		Items []struct {
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		} `json:"items"`
	}
	if err := json.Unmarshal(w.body.Bytes(), &list); err != nil || list.Kind != "CogList" || len(list.Items) != 3 ||
		list.Items[2].Metadata.Name != "c002" || list.Metadata.ResourceVersion == "" {
		t.Fatalf("streamed answer %+v (%v)", list, err)
	}
	if !bytes.HasSuffix(w.body.Bytes(), []byte("]}\n")) {
		t.Errorf("streamed answer ends %q", w.body.Bytes()[w.body.Len()-10:])
	}
}
