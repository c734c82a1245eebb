package golden

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8sproto "k8s.io/apimachinery/pkg/runtime/serializer/protobuf"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/cel"
	"github.com/kapi-dev/kapi/examples/widgets/api"
)

const protobufType = "application/vnd.kubernetes.protobuf"

// TestProtobufScale reads and writes a Widget's /scale in protobuf with
// apimachinery's serializer on the client side, as client-go's scale
// client does for autoscaling/v1 Scale.
func TestProtobufScale(t *testing.T) {
	rules, err := cel.New(cel.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := apiserver.New(apiserver.Options{RuleEngine: rules})
	srv.Register(api.WidgetKind())
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ts := httptest.NewServer(srv)
	defer ts.Close()

	scheme := runtime.NewScheme()
	if err := autoscalingv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	ser := k8sproto.NewSerializer(scheme, scheme)
	path := ts.URL + "/apis/stable.example.com/v1/namespaces/default/widgets/w1/scale"

	do := func(method, url, contentType string, body []byte) ([]byte, int) {
		t.Helper()
		req, err := http.NewRequest(method, url, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Accept", protobufType)
		req.Header.Set("Content-Type", contentType)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if got := resp.Header.Get("Content-Type"); got != protobufType {
			t.Fatalf("%s %s: Content-Type %q, want %q (body %q)", method, url, got, protobufType, b)
		}
		return b, resp.StatusCode
	}
	if _, code := do(http.MethodPost, ts.URL+"/apis/stable.example.com/v1/namespaces/default/widgets", "application/json",
		[]byte(`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{"replicas":2}}`)); code != http.StatusCreated {
		t.Fatalf("create: %d", code)
	}

	decode := func(b []byte) *autoscalingv1.Scale {
		t.Helper()
		obj, _, err := ser.Decode(b, nil, &autoscalingv1.Scale{})
		if err != nil {
			t.Fatalf("apimachinery cannot decode kapi's Scale: %v", err)
		}
		return obj.(*autoscalingv1.Scale)
	}
	b, code := do(http.MethodGet, path, "", nil)
	if code != http.StatusOK {
		t.Fatalf("get: %d", code)
	}
	sc := decode(b)
	if sc.Name != "w1" || sc.Spec.Replicas != 2 || sc.Kind != "Scale" || sc.APIVersion != "autoscaling/v1" {
		t.Fatalf("got %+v", sc)
	}

	sc.Spec.Replicas = 5
	var body bytes.Buffer
	if err := ser.Encode(sc, &body); err != nil {
		t.Fatal(err)
	}
	b, code = do(http.MethodPut, path, protobufType, body.Bytes())
	if code != http.StatusOK {
		t.Fatalf("put: %d %q", code, b)
	}
	if got := decode(b); got.Spec.Replicas != 5 {
		t.Fatalf("after put: replicas %d, want 5", got.Spec.Replicas)
	}
}
