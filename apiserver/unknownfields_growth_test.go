package apiserver_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/internal/growth"
)

// TestUnknownFieldsGrowth checks that field validation of a body with
// many unknown fields costs about the same per byte of body whatever
// their number, for a Go-typed kind and a run-time one, under Strict (one
// 400 naming them all) and Warn (a warning each): 8 times the fields may
// cost at most 1.5 times as much per byte.
func TestUnknownFieldsGrowth(t *testing.T) {
	srv := apiserver.New(apiserver.Options{})
	srv.Register(widgetKind())
	srv.Register(cogKind(t))
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	unknown := func(n int) string {
		fields := make([]string, n)
		for i := range fields {
			fields[i] = fmt.Sprintf(`"u%d":{"v":%d}`, i, i)
		}
		return strings.Join(fields, ",")
	}
	tests := []struct {
		name string
		path string
		body func(n int) string
	}{
		{"Go-typed", widgetsPath, func(n int) string {
			return `{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{` + unknown(n) + `}}`
		}},
		{"run-time", cogsPath, func(n int) string { return cog("c", `{"teeth":12,`+unknown(n)+`}`) }},
	}
	for _, tc := range tests {
		for _, directive := range []string{"Strict", "Warn"} {
			t.Run(tc.name+"/"+directive, func(t *testing.T) {
				perByte := func(n int) float64 {
					body := tc.body(n)
					got := growth.Allocated(func() {
						rec := httptest.NewRecorder()
						req := httptest.NewRequest("POST", tc.path+"?dryRun=All&fieldValidation="+directive, strings.NewReader(body))
						req.Header.Set("Content-Type", "application/json")
						srv.ServeHTTP(rec, req)
						if rec.Code != http.StatusBadRequest && rec.Code != http.StatusCreated {
							t.Fatalf("%d fields: %d %s", n, rec.Code, rec.Body.String()[:min(rec.Body.Len(), 300)])
						}
					})
					return float64(got) / float64(len(body))
				}
				perByte(100) // the first request of a kind builds what later ones reuse
				small, large := perByte(1000), perByte(8000)
				t.Logf("1000 unknown fields: %.1f bytes allocated per body byte; 8000: %.1f; ratio %.2f", small, large, large/small)
				if large > 1.5*small {
					t.Errorf("8 times the unknown fields cost %.1f times as much per byte", large/small)
				}
			})
		}
	}
}
