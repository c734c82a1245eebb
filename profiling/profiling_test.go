package profiling_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/profiling"
)

func TestHandler(t *testing.T) {
	ts := httptest.NewServer(profiling.Handler())
	defer ts.Close()
	for _, c := range []struct{ path, want string }{
		{"/debug/pprof/", "goroutine"},
		{"/debug/pprof/goroutine?debug=1", "goroutine profile:"},
		{"/debug/pprof/cmdline", "profiling.test"},
	} {
		resp, err := http.Get(ts.URL + c.path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(b), c.want) {
			t.Errorf("%s: %d, body without %q", c.path, resp.StatusCode, c.want)
		}
	}
	if resp, err := http.Get(ts.URL + "/other"); err != nil || resp.StatusCode != 404 {
		t.Errorf("a path outside /debug/pprof/: %v %v", resp.StatusCode, err)
	}
}
