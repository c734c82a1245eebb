package e2e

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"
	"k8s.io/client-go/discovery"

	"github.com/kapi-dev/kapi/examples/internal/kubectltest"
)

const openAPIV2Protobuf = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"

// getOpenAPIV2 fetches /openapi/v2 with an Accept header (and an
// If-None-Match when etag is set).
func getOpenAPIV2(t *testing.T, url, accept, etag string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url+"/openapi/v2", nil)
	if err != nil {
		t.Fatal(err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

// TestOpenAPIV2ProtobufMatchesGnostic checks that the protobuf form of
// /openapi/v2 is, byte for byte, what kube-apiserver makes of the same
// JSON: gnostic's ParseDocument, then proto.Marshal.
func TestOpenAPIV2ProtobufMatchesGnostic(t *testing.T) {
	ts := startServer(t)
	_, jsonDoc := getOpenAPIV2(t, ts.URL, "application/json", "")
	resp, pb := getOpenAPIV2(t, ts.URL, openAPIV2Protobuf, "")
	if got := resp.Header.Get("Content-Type"); got != openAPIV2Protobuf {
		t.Fatalf("Content-Type = %q", got)
	}
	want, err := openapi_v2.ParseDocument(jsonDoc)
	if err != nil {
		t.Fatal(err)
	}
	var got openapi_v2.Document
	if err := proto.Unmarshal(pb, &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, &got, protocmp.Transform()); diff != "" {
		t.Fatalf("decoded document (-gnostic +kapi):\n%s", diff)
	}
	wantBytes, err := proto.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	if string(wantBytes) != string(pb) {
		t.Errorf("bytes differ from gnostic's: %d bytes, gnostic %d", len(pb), len(wantBytes))
	}
}

// TestOpenAPIV2Negotiation checks the media types, entity tag, 304 and
// Vary of /openapi/v2, as kube-apiserver answers them.
func TestOpenAPIV2Negotiation(t *testing.T) {
	ts := startServer(t)
	jsonResp, _ := getOpenAPIV2(t, ts.URL, "", "")
	etag := jsonResp.Header.Get("Etag")
	tests := []struct {
		accept, ifNoneMatch string
		wantCode            int
		wantType            string
	}{
		{"application/com.github.proto-openapi.spec.v2@v1.0+protobuf", "", 200, openAPIV2Protobuf},
		{openAPIV2Protobuf, "", 200, openAPIV2Protobuf},
		{openAPIV2Protobuf, etag, 304, ""},
		{"application/json;q=0.5, " + openAPIV2Protobuf + ";q=0.9", "", 200, openAPIV2Protobuf},
		{"application/json, " + openAPIV2Protobuf, "", 200, "application/json"},
		{"application/*", "", 200, "application/json"},
		{"", "", 200, "application/json"},
		{"application/yaml", "", 406, ""},
	}
	for _, tc := range tests {
		t.Run(tc.accept+" "+tc.ifNoneMatch, func(t *testing.T) {
			resp, _ := getOpenAPIV2(t, ts.URL, tc.accept, tc.ifNoneMatch)
			got := []any{resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Vary")}
			want := []any{tc.wantCode, tc.wantType, "Accept"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if tc.wantCode != 406 && resp.Header.Get("Etag") != etag {
				t.Errorf("Etag = %q, want the JSON's %q", resp.Header.Get("Etag"), etag)
			}
		})
	}
}

// TestOpenAPIV2ClientGo checks client-go's OpenAPISchema, which asks for
// the protobuf form, and kubectl explain, which reads it.
func TestOpenAPIV2ClientGo(t *testing.T) {
	ts := startServer(t)
	dc, err := discovery.NewDiscoveryClientForConfig(restConfig(ts.URL))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := dc.OpenAPISchema()
	if err != nil {
		t.Fatal(err)
	}
	var widget *openapi_v2.Schema
	for _, d := range doc.GetDefinitions().GetAdditionalProperties() {
		if d.GetName() == "com.example.stable.v1.Widget" {
			widget = d.GetValue()
		}
	}
	if widget == nil {
		t.Fatal("no com.example.stable.v1.Widget definition")
	}
	var props []string
	for _, p := range widget.GetProperties().GetAdditionalProperties() {
		props = append(props, p.GetName())
	}
	if diff := cmp.Diff([]string{"apiVersion", "kind", "metadata", "spec", "status"}, props); diff != "" {
		t.Errorf("Widget properties (-want +got):\n%s", diff)
	}

	k := kubectltest.New(t, ts.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, errOut, err := k.Run(ctx, "", "explain", "--output", "plaintext-openapiv2", "widgets.spec")
	if err != nil {
		t.Fatalf("kubectl explain: %v\n%s", err, errOut)
	}
	for _, want := range []string{"KIND:     Widget", "VERSION:  stable.example.com/v1", "color", "replicas"} {
		if !strings.Contains(out, want) {
			t.Errorf("explain lacks %q:\n%s", want, out)
		}
	}
}
