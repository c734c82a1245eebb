package crd_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/controllers/crd"
)

// An object stored before its definition changed is read through the
// new schema: a removed field is gone and a new default is there on
// get, list (in every encoding and as a Table) and watch, without the
// object being written (its resourceVersion stays), and in the object a
// delete answers with.
func TestReadThroughNewSchema(t *testing.T) {
	e := start(t)
	if err := crd.Create(ctx(t), e.srv, manifest(t, crontabCRD)); err != nil {
		t.Fatal(err)
	}
	code, body := e.do(t, "POST", crontabs, "application/json",
		`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"old","finalizers":["example.com/hold"]},"spec":{"image":"busybox","port":80}}`)
	if code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, body)
	}
	var created struct {
		Metadata struct{ ResourceVersion string }
	}
	_ = json.Unmarshal([]byte(body), &created)
	code, body = e.do(t, "PATCH", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/crontabs.stable.example.com", "application/json-patch+json",
		`[{"op":"remove","path":"/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/port"},
		  {"op":"add","path":"/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/image/default","value":"nginx"},
		  {"op":"add","path":"/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/suspend","value":{"type":"boolean","default":false}}]`)
	if code != http.StatusOK {
		t.Fatalf("patch definition: %d %s", code, body)
	}
	want := func(what, obj string) (bool, string) {
		ok := strings.Contains(obj, `"spec":{"image":"busybox","replicas":1,"suspend":false}`) &&
			strings.Contains(obj, `"resourceVersion":"`+created.Metadata.ResourceVersion+`"`)
		return ok, what + ": " + obj
	}
	eventually(t, "get through the new schema", func() (bool, string) {
		_, body := e.do(t, "GET", crontabs+"/old", "", "")
		return want("get", body)
	})
	_, body = e.do(t, "GET", crontabs, "", "")
	if ok, msg := want("list", body); !ok {
		t.Error(msg)
	}
	_, body = e.do(t, "GET", crontabs+"?resourceVersion=0", "", "")
	if ok, msg := want("list from the cache", body); !ok {
		t.Error(msg)
	}
	resp, err := http.Get(e.ts.URL + crontabs + "?watch=1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	if ok, msg := want("watch", line); !ok {
		t.Error(msg)
	}
	code, body = e.get(t, crontabs, "application/yaml")
	if code != http.StatusOK || !strings.Contains(body, "spec:\n    image: busybox\n    replicas: 1\n    suspend: false\n") {
		t.Errorf("list in YAML: %d %s", code, body)
	}
	code, body = e.get(t, crontabs+"?includeObject=Object", "application/json;as=Table;v=v1;g=meta.k8s.io")
	if code != http.StatusOK || !strings.Contains(body, `"cells":["old",null,null]`) || !strings.Contains(body, `"spec":{"image":"busybox","replicas":1,"suspend":false}`) {
		t.Errorf("Table: %d %s", code, body)
	}
	// The object a delete marks (it has a finalizer) is the one read.
	code, body = e.do(t, "DELETE", crontabs+"/old", "", "")
	if code != http.StatusOK || !strings.Contains(body, `"spec":{"image":"busybox","replicas":1,"suspend":false}`) || !strings.Contains(body, `"deletionTimestamp"`) {
		t.Errorf("delete: %d %s", code, body)
	}
	// A merge patch starts from the object as read.
	code, body = e.do(t, "PATCH", crontabs+"/old", "application/merge-patch+json", `{"metadata":{"finalizers":null},"spec":{"replicas":2}}`)
	if code != http.StatusOK || !strings.Contains(body, `"spec":{"image":"busybox","replicas":2,"suspend":false}`) {
		t.Fatalf("patch: %d %s", code, body)
	}
}
