package apiserver_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/apiserver"
)

// TestRequestDebugLog: with debug logging on, every request is logged
// with its URI, code and duration; with it off, none is.
func TestRequestDebugLog(t *testing.T) {
	for _, level := range []slog.Level{slog.LevelDebug, slog.LevelInfo} {
		var buf bytes.Buffer
		srv := apiserver.New(apiserver.Options{Logger: slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: level}))})
		srv.Register(widgetKind())
		if err := srv.Err(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(srv.Close)
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, httptest.NewRequest("GET", widgetsPath+"/missing?x=1", nil))
		if w.Code != http.StatusNotFound {
			t.Fatalf("GET: %d", w.Code)
		}
		var line string
		for _, l := range strings.Split(buf.String(), "\n") {
			if strings.Contains(l, "msg=request ") {
				line = l
			}
		}
		if level == slog.LevelInfo {
			if line != "" {
				t.Errorf("logged at info level: %s", line)
			}
			continue
		}
		for _, want := range []string{"method=GET", `uri="` + widgetsPath + `/missing?x=1"`, "code=404", "duration="} {
			if !strings.Contains(line, want) {
				t.Errorf("debug log %q lacks %q", line, want)
			}
		}
		if strings.Contains(line, "duration=0s") {
			t.Errorf("debug log %q has no duration", line)
		}
	}
}
