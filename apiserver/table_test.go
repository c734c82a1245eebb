package apiserver_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/meta"
)

// The Accept list kubectl sends for get.
const kubectlTableAccept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"

type tableBody struct {
	Kind              string `json:"kind"`
	APIVersion        string `json:"apiVersion"`
	Metadata          meta.ListMeta
	ColumnDefinitions []struct {
		Name, Type, Format string
		Priority           int32
	} `json:"columnDefinitions"`
	Rows []struct {
		Cells  []any           `json:"cells"`
		Object json.RawMessage `json:"object"`
	} `json:"rows"`
}

func newColumnsServer(t *testing.T) *httpTestServer {
	k := widgetKind()
	k.PrinterColumns = []apiserver.PrinterColumn{
		{Name: "Color", Type: "string", JSONPath: ".spec.color"},
		{Name: "Replicas", Type: "integer", JSONPath: ".spec.replicas"},
		{Name: "Ready", Type: "integer", JSONPath: ".status.readyReplicas", Priority: 1},
		{Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp"},
	}
	return startWith(t, k, gadgetKind())
}

func TestTable(t *testing.T) {
	ts := newColumnsServer(t)
	createWidget(t, ts.Server, "a", `{"color":"red","replicas":3}`)
	createWidget(t, ts.Server, "b", `{"color":"blue"}`)

	tests := []struct {
		name, path, accept string
		rows               int
		cols               []string
		object             string // kind of the row object, "" for none
		firstCells         []any
	}{
		{"list with kind columns", widgetsPath, kubectlTableAccept, 2, []string{"Name", "Color", "Replicas", "Ready", "Age"}, "PartialObjectMetadata",
			[]any{"a", "red", float64(3), nil}},
		{"get one", widgetsPath + "/b", kubectlTableAccept, 1, []string{"Name", "Color", "Replicas", "Ready", "Age"}, "PartialObjectMetadata",
			[]any{"b", "blue", nil, nil}},
		{"v1beta1", widgetsPath, "application/json;as=Table;v=v1beta1;g=meta.k8s.io", 2, nil, "PartialObjectMetadata", nil},
		{"includeObject=None", widgetsPath + "?includeObject=None", kubectlTableAccept, 2, nil, "", nil},
		{"includeObject=Object", widgetsPath + "?includeObject=Object", kubectlTableAccept, 2, nil, "Widget", nil},
		{"default columns", "/apis/stable.example.com/v1/gadgets", kubectlTableAccept, 0, []string{"Name", "Created At"}, "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := get(t, ts.URL+tc.path, tc.accept)
			// kube-apiserver names a Table response application/json.
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
				t.Fatalf("%d %s %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
			}
			var tb tableBody
			if err := json.Unmarshal(body, &tb); err != nil || tb.Kind != "Table" || !strings.HasPrefix(tb.APIVersion, "meta.k8s.io/") {
				t.Fatalf("%v %s", err, body)
			}
			if len(tb.Rows) != tc.rows || tb.Metadata.ResourceVersion == "" {
				t.Errorf("rows %d rv %q: %s", len(tb.Rows), tb.Metadata.ResourceVersion, body)
			}
			if tc.cols != nil {
				var got []string
				for _, c := range tb.ColumnDefinitions {
					got = append(got, c.Name)
				}
				if strings.Join(got, ",") != strings.Join(tc.cols, ",") {
					t.Errorf("columns %v, want %v", got, tc.cols)
				}
			}
			for _, r := range tb.Rows {
				var obj struct{ Kind string }
				_ = json.Unmarshal(r.Object, &obj)
				if obj.Kind != tc.object {
					t.Errorf("row object kind %q, want %q", obj.Kind, tc.object)
				}
			}
			if tc.firstCells != nil {
				got := tb.Rows[0].Cells
				for i, want := range tc.firstCells {
					if got[i] != want {
						t.Errorf("cell %d = %#v, want %#v", i, got[i], want)
					}
				}
				if s, _ := got[4].(string); !strings.HasSuffix(s, "s") {
					t.Errorf("Age cell %#v, want an age in seconds", got[4])
				}
			}
		})
	}
	// A bad includeObject is refused in kube-apiserver's words.
	resp, body := get(t, ts.URL+widgetsPath+"?includeObject=Some", kubectlTableAccept)
	st := decodeStatus(t, response{code: resp.StatusCode, body: body})
	want := `Unable to convert to Table as requested: includeObject: Invalid value: "Some": must be 'Metadata', 'Object', 'None', or empty`
	if st.Code != 400 || st.Reason != "BadRequest" || st.Message != want {
		t.Errorf("bad includeObject: %d %s %q, want 400 BadRequest %q", st.Code, st.Reason, st.Message, want)
	}
}

// TestWriteRenderings: a write answers in the rendering the client asks
// for, as kube-apiserver does: a create, update, patch or delete of an
// object as a Table of one row or a PartialObjectMetadata, a delete's
// Status as it is, all named application/json; a client that accepts
// nothing the server sends gets 406 and nothing is written.
func TestWriteRenderings(t *testing.T) {
	ts := newTestServer(t)
	const table, partial = "application/json;as=Table;v=v1;g=meta.k8s.io", "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io"
	for _, c := range []struct {
		name, method, path, contentType, body, accept string
		code                                          int
		kind, row                                     string // the answer's kind; a Table's first cell
	}{
		{"create as Table", "POST", widgetsPath, "application/json", `{"metadata":{"name":"c"},"spec":{"color":"red"}}`, table, 201, "Table", "c"},
		{"update as PartialObjectMetadata", "PUT", widgetsPath + "/c", "application/json", `{"metadata":{"name":"c"},"spec":{"color":"blue"}}`, partial, 200, "PartialObjectMetadata", ""},
		{"patch as Table", "PATCH", widgetsPath + "/c", "application/merge-patch+json", `{"spec":{"color":"green"}}`, table, 200, "Table", "c"},
		{"apply as Table", "PATCH", widgetsPath + "/c?fieldManager=m", "application/apply-patch+yaml", `{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"c"},"spec":{"replicas":2}}`, table, 200, "Table", "c"},
		{"delete's Status", "DELETE", widgetsPath + "/c", "", "", table, 200, "Status", ""},
		{"create accepting nothing served", "POST", widgetsPath, "application/json", `{"metadata":{"name":"d"}}`, "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io", 406, "Status", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var body []byte
			if c.body != "" {
				body = []byte(c.body)
			}
			r := send(t, ts.URL+c.path, c.method, map[string]string{"Content-Type": c.contentType, "Accept": c.accept}, body)
			var got struct {
				Kind string
				Rows []struct{ Cells []any }
			}
			if err := json.Unmarshal(r.body, &got); err != nil || r.code != c.code || got.Kind != c.kind || r.header.Get("Content-Type") != "application/json" {
				t.Fatalf("%d %s %s, want %d %s as application/json", r.code, r.header.Get("Content-Type"), r.body, c.code, c.kind)
			}
			if c.row != "" && (len(got.Rows) != 1 || got.Rows[0].Cells[0] != c.row) {
				t.Errorf("rows %v, want one of %s", got.Rows, c.row)
			}
		})
	}
	if r := do(t, ts, "GET", widgetsPath+"/d", "", ""); r.code != http.StatusNotFound {
		t.Errorf("a create answered 406 wrote: GET %d", r.code)
	}
}

func TestPartialObjectMetadata(t *testing.T) {
	ts := newTestServer(t)
	createWidget(t, ts, "a", `{"color":"red"}`)
	resp, body := get(t, ts.URL+widgetsPath, "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json")
	var l struct {
		Kind, APIVersion string
		Items            []struct {
			Kind     string
			Metadata meta.ObjectMeta
			Spec     any `json:"spec"`
		}
	}
	if err := json.Unmarshal(body, &l); err != nil || l.Kind != "PartialObjectMetadataList" || l.APIVersion != "meta.k8s.io/v1" ||
		len(l.Items) != 1 || l.Items[0].Metadata.Name != "a" || l.Items[0].Spec != nil || l.Items[0].Kind != "PartialObjectMetadata" {
		t.Fatalf("%v %s %s", err, resp.Header.Get("Content-Type"), body)
	}
	_, body = get(t, ts.URL+widgetsPath+"/a", "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1")
	if !strings.Contains(string(body), `"kind":"PartialObjectMetadata"`) || strings.Contains(string(body), `"spec"`) {
		t.Errorf("get partial: %s", body)
	}
}

// TestTableColumnDescriptions: a JSONPath column its kind does not
// describe is described as kube-apiserver describes a custom resource's,
// by its path; a described one keeps its description.
func TestTableColumnDescriptions(t *testing.T) {
	k := widgetKind()
	k.PrinterColumns = []apiserver.PrinterColumn{
		{Name: "Color", Type: "string", JSONPath: ".spec.color"},
		{Name: "Replicas", Type: "integer", JSONPath: ".spec.replicas", Description: "Desired replicas."},
		{Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp"},
	}
	ts := startWith(t, k)
	_, body := get(t, ts.URL+widgetsPath, kubectlTableAccept)
	var tb struct {
		ColumnDefinitions []struct{ Name, Description string } `json:"columnDefinitions"`
	}
	if err := json.Unmarshal(body, &tb); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	got := map[string]string{}
	for _, c := range tb.ColumnDefinitions[1:] {
		got[c.Name] = c.Description
	}
	want := map[string]string{
		"Color":    "Custom resource definition column (in JSONPath format): .spec.color",
		"Replicas": "Desired replicas.",
		"Age":      "Custom resource definition column (in JSONPath format): .metadata.creationTimestamp",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("descriptions (-want +got):\n%s", d)
	}
}
