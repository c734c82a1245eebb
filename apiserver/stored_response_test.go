package apiserver_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestWriteAnswersAreTheObjectsEncoding checks that the answer to every
// kind of write is, byte for byte, the JSON encoding of the object it
// returns (and, when stored, what a GET then serves), and that other
// media types are still encoded from the object.
func TestWriteAnswersAreTheObjectsEncoding(t *testing.T) {
	k := widgetKind()
	k.AllowCreateOnUpdate = true
	ts := startWith(t, k)
	const obj = `{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"w","annotations":{"a":"<b&c>"}},"spec":{"replicas":2,"color":"red","ports":[{"name":"http","port":80}]}}`
	tests := []struct {
		name, method, path, contentType, accept, body string
		code                                          int
		dry                                           bool // nothing stored: no GET to compare with
	}{
		{name: "create", method: "POST", path: widgetsPath, contentType: "application/json", body: obj, code: http.StatusCreated},
		{name: "update", method: "PUT", path: widgetsPath + "/w", contentType: "application/json", code: http.StatusOK,
			body: strings.Replace(obj, `"replicas":2`, `"replicas":3`, 1)},
		{name: "update that changes nothing", method: "PUT", path: widgetsPath + "/w", contentType: "application/json", code: http.StatusOK,
			body: strings.Replace(obj, `"replicas":2`, `"replicas":3`, 1)},
		{name: "merge patch", method: "PATCH", path: widgetsPath + "/w", contentType: "application/merge-patch+json", code: http.StatusOK,
			body: `{"spec":{"color":"blue"}}`},
		{name: "status", method: "PUT", path: widgetsPath + "/w/status", contentType: "application/json", code: http.StatusOK,
			body: strings.Replace(obj, `"spec"`, `"status":{"readyReplicas":1},"spec"`, 1)},
		{name: "create by update", method: "PUT", path: widgetsPath + "/v", contentType: "application/json", code: http.StatusCreated,
			body: strings.Replace(obj, `"name":"w"`, `"name":"v"`, 1)},
		{name: "dry-run create", method: "POST", path: widgetsPath + "?dryRun=All", contentType: "application/json", code: http.StatusCreated, dry: true,
			body: strings.Replace(obj, `"name":"w"`, `"name":"x"`, 1)},
		{name: "dry-run update", method: "PUT", path: widgetsPath + "/w?dryRun=All", contentType: "application/json", code: http.StatusOK, dry: true,
			body: strings.Replace(obj, `"replicas":2`, `"replicas":9`, 1)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, ct, body := sendAccept(t, ts.URL+tc.path, tc.method, tc.contentType, "application/json", tc.body)
			if code != tc.code || ct != "application/json" {
				t.Fatalf("%d %s: %s", code, ct, body)
			}
			var w widget
			if err := json.Unmarshal(body, &w); err != nil {
				t.Fatal(err)
			}
			var want bytes.Buffer
			if err := json.NewEncoder(&want).Encode(&w); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(body, want.Bytes()) {
				t.Errorf("answer\n%s\nis not the object's encoding\n%s", body, want.Bytes())
			}
			if tc.dry {
				return
			}
			_, _, got := sendAccept(t, ts.URL+widgetsPath+"/"+w.Name, "GET", "", "application/json", "")
			if !bytes.Equal(body, got) {
				t.Errorf("answer\n%s\nis not what GET serves\n%s", body, got)
			}
		})
	}
	code, ct, body := sendAccept(t, ts.URL+widgetsPath+"/w", "PUT", "application/json", "application/yaml", strings.Replace(obj, `"replicas":2`, `"replicas":4`, 1))
	if code != http.StatusOK || ct != "application/yaml" || !bytes.Contains(body, []byte("replicas: 4")) {
		t.Errorf("update answered as YAML: %d %s\n%s", code, ct, body)
	}
}

func sendAccept(t *testing.T, url, method, contentType, accept, body string) (int, string, []byte) {
	t.Helper()
	r := send(t, url, method, map[string]string{"Content-Type": contentType, "Accept": accept}, []byte(body))
	return r.code, r.header.Get("Content-Type"), r.body
}
