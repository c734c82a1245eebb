package apiserver_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

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
			if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json;as=Table") {
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
	if resp, _ := get(t, ts.URL+widgetsPath+"?includeObject=Some", kubectlTableAccept); resp.StatusCode != 400 {
		t.Errorf("bad includeObject: %d", resp.StatusCode)
	}
	// Only a Table is acceptable, and the request is a write: 406.
	req, _ := http.NewRequest("POST", ts.URL+widgetsPath, strings.NewReader(`{"metadata":{"name":"c"}}`))
	req.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotAcceptable {
		t.Errorf("table accept on create: %d", resp.StatusCode)
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
