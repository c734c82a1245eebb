package resourceversion

import (
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/kapi-dev/kapi/status"
)

func b64(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

func TestEncodeContinueWireFormat(t *testing.T) {
	cases := []struct {
		name string
		in   ContinueToken
		json string
	}{
		{"after a namespaced key", ContinueAfter(10245, "default/foo"), `{"v":"meta.k8s.io/v1","rv":10245,"start":"default/foo\u0000"}`},
		{"html characters escaped as encoding/json does", ContinueToken{Revision: 3, StartKey: "a<b>&c"}, `{"v":"meta.k8s.io/v1","rv":3,"start":"a\u003cb\u003e\u0026c"}`},
		{"current revision", ContinueToken{Revision: -1, StartKey: "x"}, `{"v":"meta.k8s.io/v1","rv":-1,"start":"x"}`},
		{"empty start key written as slash", ContinueToken{Revision: 9}, `{"v":"meta.k8s.io/v1","rv":9,"start":"/"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := EncodeContinue(tc.in)
			if want := b64(tc.json); got != want {
				raw, _ := base64.RawURLEncoding.DecodeString(got)
				t.Fatalf("EncodeContinue(%+v) = %s (%s), want %s (%s)", tc.in, got, raw, want, tc.json)
			}
			back, err := DecodeContinue(got)
			if err != nil || back != tc.in {
				t.Fatalf("DecodeContinue(EncodeContinue(%+v)) = %+v, %v", tc.in, back, err)
			}
		})
	}
}

func TestDecodeContinue(t *testing.T) {
	cases := []struct {
		name  string
		token string
		want  ContinueToken
	}{
		{"as kube-apiserver writes it", b64(`{"v":"meta.k8s.io/v1","rv":10245,"start":"ns/pod-1\u0000"}`), ContinueToken{10245, "ns/pod-1\x00"}},
		{"remaining count field of newer servers ignored", b64(`{"v":"meta.k8s.io/v1","rv":5,"start":"a\u0000","rc":12}`), ContinueToken{5, "a\x00"}},
		{"leading slash dropped", b64(`{"v":"meta.k8s.io/v1","rv":5,"start":"/a/b"}`), ContinueToken{5, "a/b"}},
		{"slash alone is the start of the prefix", b64(`{"v":"meta.k8s.io/v1","rv":5,"start":"/"}`), ContinueToken{5, ""}},
		{"negative revision is the current revision", b64(`{"v":"meta.k8s.io/v1","rv":-1,"start":"a"}`), ContinueToken{-1, "a"}},
		{"field names match case-insensitively", b64(`{"V":"meta.k8s.io/v1","RV":5,"Start":"a"}`), ContinueToken{5, "a"}},
		{"dots inside a name are fine", b64(`{"v":"meta.k8s.io/v1","rv":5,"start":"ns/a..b"}`), ContinueToken{5, "ns/a..b"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DecodeContinue(tc.token)
			if err != nil || got != tc.want {
				t.Fatalf("DecodeContinue = %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

func TestDecodeContinueRejects(t *testing.T) {
	const p = "invalid continue token: continue key is not valid"
	cases := []struct {
		name  string
		token string
		msg   string
	}{
		{"not base64", "!!", p + ": illegal base64 data at input byte 0"},
		{"padded base64", base64.URLEncoding.EncodeToString([]byte(`{"v":"meta.k8s.io/v1","rv":5,"start":"abc"}`)), p + ": illegal base64 data at input byte 58"},
		{"standard alphabet", "a+b/", p + ": illegal base64 data at input byte 1"},
		{"empty", "", p + ": unexpected end of JSON input"},
		{"not JSON", b64("hello"), p + ": invalid character 'h' looking for beginning of value"},
		{"JSON array", b64(`[]`), p + ": json: cannot unmarshal array into Go value of type resourceversion.continueToken"},
		{"rv as string", b64(`{"v":"meta.k8s.io/v1","rv":"5","start":"a"}`), p + ": json: cannot unmarshal string into Go struct field continueToken.rv of type int64"},
		{"rv as float", b64(`{"v":"meta.k8s.io/v1","rv":1.5,"start":"a"}`), p + ": json: cannot unmarshal number 1.5 into Go struct field continueToken.rv of type int64"},
		{"unknown version", b64(`{"v":"v1alpha1","rv":5,"start":"a"}`), p + ": server does not recognize this encoded version v1alpha1"},
		{"no version", b64(`{"rv":5,"start":"a"}`), p + ": server does not recognize this encoded version "},
		{"null", b64(`null`), p + ": server does not recognize this encoded version "},
		{"zero revision", b64(`{"v":"meta.k8s.io/v1","rv":0,"start":"a"}`), p + ": incorrect encoded start resourceVersion (version meta.k8s.io/v1)"},
		{"missing revision", b64(`{"v":"meta.k8s.io/v1","start":"a"}`), p + ": incorrect encoded start resourceVersion (version meta.k8s.io/v1)"},
		{"empty start", b64(`{"v":"meta.k8s.io/v1","rv":5,"start":""}`), p + ": encoded start key empty (version meta.k8s.io/v1)"},
		{"parent directory", b64(`{"v":"meta.k8s.io/v1","rv":5,"start":"../secrets/x"}`), p + ": ../secrets/x"},
		{"parent directory inside", b64(`{"v":"meta.k8s.io/v1","rv":5,"start":"ns/../../x"}`), p + ": ns/../../x"},
		{"current directory", b64(`{"v":"meta.k8s.io/v1","rv":5,"start":"./x"}`), p + ": ./x"},
		{"double slash", b64(`{"v":"meta.k8s.io/v1","rv":5,"start":"a//b"}`), p + ": a//b"},
		{"trailing slash", b64(`{"v":"meta.k8s.io/v1","rv":5,"start":"a/"}`), p + ": a/"},
		{"absolute parent", b64(`{"v":"meta.k8s.io/v1","rv":5,"start":"/.."}`), p + ": /.."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeContinue(tc.token)
			checkErr(t, err, badRequest(tc.msg))
		})
	}
}

func TestContinueExpired(t *testing.T) {
	err := ContinueExpired(ContinueToken{Revision: 42, StartKey: "ns/b\x00"})
	if !status.IsExpired(err) || status.CodeOf(err) != 410 {
		t.Fatalf("ContinueExpired = %v, want a 410 Expired", err)
	}
	st := status.FromError(err)
	if st.Message != inconsistentContinue {
		t.Fatalf("message = %q", st.Message)
	}
	next, derr := DecodeContinue(st.ListMeta.Continue)
	if derr != nil || next != (ContinueToken{Revision: -1, StartKey: "ns/b\x00"}) {
		t.Fatalf("metadata.continue decodes to %+v, %v", next, derr)
	}
	l, lerr := ParseList(query(t, "limit=2&continue="+st.ListMeta.Continue))
	if lerr != nil || l.Semantics != Continuation || l.Revision != 0 {
		t.Fatalf("the offered token parses to %+v, %v; want a continuation at the current revision", l, lerr)
	}
}

func TestTooLargeResourceVersion(t *testing.T) {
	err := TooLargeResourceVersion(10, 12)
	if !status.IsTimeout(err) {
		t.Fatalf("not a Timeout: %v", err)
	}
	got, _ := json.Marshal(status.FromError(err))
	want := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",` +
		`"message":"Timeout: Too large resource version: 12, current: 10","reason":"Timeout",` +
		`"details":{"causes":[{"reason":"ResourceVersionTooLarge","message":"Too large resource version"}],"retryAfterSeconds":1},"code":504}`
	if string(got) != want {
		t.Fatalf("wire form\n got %s\nwant %s", got, want)
	}
}
