package apiextensionsv1_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/kinds/apiextensionsv1"
)

// referenceCase is a dry-run create of a definition and what
// kube-apiserver v1.37 answered (testdata/reference-*.json): 201, or a
// 422 whose message and causes are kapi's to match. The answers leave
// out the causes on status.storedVersions, which their own tests cover.
type referenceCase struct {
	Name   string          `json:"name"`
	CRD    json.RawMessage `json:"crd"`
	Code   int             `json:"code"`
	Status *refusal        `json:"status"`
}

type refusal struct {
	Reason  string  `json:"reason"`
	Message string  `json:"message"`
	Causes  []cause `json:"causes"`
}

type cause struct {
	Reason  string `json:"reason"`
	Message string `json:"message"`
	Field   string `json:"field"`
}

// TestReferenceAnswers sends each recorded definition to kapi as a dry
// run and compares the answer with kube-apiserver's: printer columns,
// selectable fields, the scale subresource, names, group, scope,
// versions and conversion, each problem reported where kube reports it
// (spec.additionalPrinterColumns, spec.subresources, spec.selectableFields
// and spec.validation when every version shares the part), in kube's
// order and words.
func TestReferenceAnswers(t *testing.T) {
	files, err := filepath.Glob("testdata/reference-*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no reference answers: %v", err)
	}
	srv := apiserver.New(apiserver.Options{})
	apiextensionsv1.Register(srv)
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(func() { ts.Close(); srv.Close() })
	for _, file := range files {
		for _, tc := range readCases(t, file) {
			t.Run(strings.TrimSuffix(strings.TrimPrefix(filepath.Base(file), "reference-"), ".json")+"/"+tc.Name, func(t *testing.T) {
				code, got := dryRunCreate(t, ts.URL, tc.CRD)
				if code != tc.Code {
					t.Fatalf("code %d, want %d: %+v", code, tc.Code, got)
				}
				if diff := cmp.Diff(tc.Status, got); diff != "" {
					t.Errorf("answer (-kube-apiserver +kapi):\n%s", diff)
				}
			})
		}
	}
}

func readCases(t *testing.T, file string) []referenceCase {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var cases []referenceCase
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return cases
}

// dryRunCreate posts a definition with dryRun=All and returns the code
// and, for a refusal, its reason, message and causes.
func dryRunCreate(t *testing.T, base string, crd []byte) (int, *refusal) {
	t.Helper()
	resp, err := http.Post(base+"/apis/apiextensions.k8s.io/v1/customresourcedefinitions?dryRun=All", "application/json", bytes.NewReader(crd))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusCreated {
		return resp.StatusCode, nil
	}
	var st struct {
		refusal
		Details struct {
			Causes []cause `json:"causes"`
		} `json:"details"`
	}
	if err := json.Unmarshal(body, &st); err != nil {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	st.Causes = st.Details.Causes
	return resp.StatusCode, &st.refusal
}
