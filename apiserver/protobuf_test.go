package apiserver_test

import (
	"bytes"
	"encoding/binary"
	"net/http"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/codec/protobuf"
	"github.com/kapi-dev/kapi/meta"
)

const (
	pb          = "application/vnd.kubernetes.protobuf"
	sprocketURL = "/apis/stable.example.com/v1/namespaces/default/sprockets"
)

// sprocket is a kind with protobuf tags.
type sprocket struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec            sprocketSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
}

type sprocketSpec struct {
	Teeth int32  `json:"teeth,omitempty" protobuf:"varint,1,opt,name=teeth"`
	Alloy string `json:"alloy,omitempty" protobuf:"bytes,2,opt,name=alloy"`
}

func sprocketKind() apiserver.Kind {
	return apiserver.Kind{Group: "stable.example.com", Version: "v1", Kind: "Sprocket", Resource: "sprockets",
		Namespaced: true, New: func() meta.Object { return &sprocket{} }}
}

// doMedia sends a request with Accept and Content-Type headers.
func doMedia(t *testing.T, url, method, accept, contentType string, body []byte) response {
	t.Helper()
	return send(t, url, method, map[string]string{"Accept": accept, "Content-Type": contentType}, body)
}

func pbEncode(t *testing.T, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := protobuf.New().Encode(&buf, v); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func pbDecode(t *testing.T, r response, v any) {
	t.Helper()
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, pb) {
		t.Fatalf("Content-Type %q, want protobuf; body %s", ct, r.body)
	}
	if _, err := protobuf.New().Decode(r.body, v); err != nil {
		t.Fatalf("decoding the response: %v", err)
	}
}

func TestProtobufReadsAndWrites(t *testing.T) {
	ts := startWith(t, sprocketKind())
	in := &sprocket{TypeMeta: meta.TypeMeta{Kind: "Sprocket", APIVersion: "stable.example.com/v1"},
		ObjectMeta: meta.ObjectMeta{Name: "s1"}, Spec: sprocketSpec{Teeth: 32, Alloy: "steel"}}
	r := doMedia(t, ts.URL+sprocketURL, "POST", pb, pb, pbEncode(t, in))
	if r.code != http.StatusCreated {
		t.Fatalf("create: %d %q", r.code, r.body)
	}
	var created sprocket
	pbDecode(t, r, &created)
	if created.UID == "" || created.Namespace != "default" || created.Spec != in.Spec || created.Kind != "Sprocket" {
		t.Fatalf("created %+v", created)
	}

	var got sprocket
	pbDecode(t, doMedia(t, ts.URL+sprocketURL+"/s1", "GET", pb, "", nil), &got)
	if got.UID != created.UID || got.Spec.Teeth != 32 {
		t.Fatalf("get %+v", got)
	}

	type sprocketList struct {
		meta.TypeMeta `json:",inline"`
		meta.ListMeta `json:"metadata" protobuf:"bytes,1,opt,name=metadata"`
		Items         []sprocket `json:"items" protobuf:"bytes,2,rep,name=items"`
	}
	var list sprocketList
	pbDecode(t, doMedia(t, ts.URL+sprocketURL, "GET", pb, "", nil), &list)
	if list.Kind != "SprocketList" || list.APIVersion != "stable.example.com/v1" || len(list.Items) != 1 || list.Items[0].Name != "s1" {
		t.Fatalf("list %+v", list)
	}

	// Errors come back as a protobuf Status.
	var st meta.Status
	r = doMedia(t, ts.URL+sprocketURL+"/missing", "GET", pb, "", nil)
	pbDecode(t, r, &st)
	if r.code != http.StatusNotFound || st.Kind != "Status" || st.Reason != meta.StatusReasonNotFound || st.Code != 404 {
		t.Fatalf("missing: %d %+v", r.code, st)
	}

	// A body that is not protobuf is a 400.
	r = doMedia(t, ts.URL+sprocketURL, "POST", "", pb, []byte(`{"kind":"Sprocket"}`))
	if st := decodeStatus(t, r); r.code != http.StatusBadRequest || !strings.Contains(st.Message, "does not appear to be a protobuf message") {
		t.Fatalf("JSON sent as protobuf: %d %s", r.code, r.body)
	}

	// Partial metadata has a protobuf form.
	var partial struct {
		meta.TypeMeta `json:",inline"`
		Metadata      meta.ObjectMeta `protobuf:"bytes,1,opt,name=metadata"`
	}
	r = doMedia(t, ts.URL+sprocketURL+"/s1", "GET", pb+";as=PartialObjectMetadata;g=meta.k8s.io;v=v1", "", nil)
	pbDecode(t, r, &partial)
	// kube-apiserver names the media type alone.
	if r.header.Get("Content-Type") != pb ||
		partial.Kind != "PartialObjectMetadata" || partial.APIVersion != "meta.k8s.io/v1" || partial.Metadata.UID != created.UID {
		t.Fatalf("partial: %s %+v", r.header.Get("Content-Type"), partial)
	}

	// A protobuf DeleteOptions body.
	uid := "wrong"
	r = doMedia(t, ts.URL+sprocketURL+"/s1", "DELETE", pb, pb, pbEncode(t, &meta.DeleteOptions{
		TypeMeta: meta.TypeMeta{Kind: "DeleteOptions", APIVersion: "meta.k8s.io/v1"}, Preconditions: &meta.Preconditions{UID: &uid}}))
	if r.code != http.StatusConflict {
		t.Fatalf("delete with a wrong uid precondition: %d %q", r.code, r.body)
	}
}

func TestProtobufNegotiation(t *testing.T) {
	ts := startWith(t, widgetKind(), sprocketKind()) // widget has no protobuf tags
	table := ";as=Table;g=meta.k8s.io;v=v1"
	cases := []struct {
		name, path, accept string
		code               int
		contentType        string
	}{
		{"untagged kind, protobuf only", widgetsPath, pb, http.StatusNotAcceptable, "application/json"},
		{"untagged kind falls back", widgetsPath, pb + ", application/json", http.StatusOK, "application/json"},
		{"untagged kind, client-go's default", widgetsPath, pb + ", */*", http.StatusOK, "application/json"},
		{"untagged kind, yaml fallback", widgetsPath, pb + ";q=1, application/yaml;q=0.5", http.StatusOK, "application/yaml"},
		{"table has no protobuf form", sprocketURL, pb + table, http.StatusNotAcceptable, "application/json"},
		// A transformed response is named by its media type alone, as
		// kube-apiserver names it.
		{"table falls back to JSON", sprocketURL, pb + table + ", application/json" + table, http.StatusOK, "application/json"},
		{"partial list in protobuf", sprocketURL, pb + ";as=PartialObjectMetadataList;g=meta.k8s.io;v=v1", http.StatusOK, pb},
		{"watch stream", sprocketURL + "?watch=true&timeoutSeconds=1", pb, http.StatusOK, pb + ";stream=watch"},
		{"untagged watch falls back", widgetsPath + "?watch=true&timeoutSeconds=1", pb + ", application/json", http.StatusOK, "application/json"},
		// Errors of a kind without a protobuf form come in a type the kind
		// has, as a custom resource's do in kube-apiserver.
		{"untagged kind's error falls back", widgetsPath + "/missing", pb + ", application/json", http.StatusNotFound, "application/json"},
		{"tagged kind's error in protobuf", sprocketURL + "/missing", pb + ", application/json", http.StatusNotFound, pb},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := doMedia(t, ts.URL+c.path, "GET", c.accept, "", nil)
			if r.code != c.code || r.header.Get("Content-Type") != c.contentType {
				t.Fatalf("%d %q, want %d %q: %s", r.code, r.header.Get("Content-Type"), c.code, c.contentType, r.body)
			}
			if c.code == http.StatusNotAcceptable || c.code == http.StatusNotFound && c.contentType == "application/json" {
				st := decodeStatus(t, r)
				if c.code == http.StatusNotAcceptable && st.Reason != meta.StatusReasonNotAcceptable || strings.Contains(st.Message, pb) && c.path == widgetsPath {
					t.Errorf("406 Status: %+v", st)
				}
			}
		})
	}
}

func TestProtobufBodyForUntaggedKind(t *testing.T) {
	ts := startWith(t, widgetKind())
	body := pbEncode(t, &sprocket{ObjectMeta: meta.ObjectMeta{Name: "w"}})
	r := doMedia(t, ts.URL+widgetsPath, "POST", "", pb, body)
	st := decodeStatus(t, r)
	if r.code != http.StatusUnsupportedMediaType || st.Reason != meta.StatusReasonUnsupportedMediaType ||
		strings.Contains(st.Message, pb) || !strings.Contains(st.Message, "application/json") {
		t.Fatalf("%d %+v", r.code, st)
	}
}

func TestProtobufWatchFrames(t *testing.T) {
	ts := startWith(t, sprocketKind())
	for _, name := range []string{"a", "b"} {
		if r := doMedia(t, ts.URL+sprocketURL, "POST", "", pb, pbEncode(t, &sprocket{ObjectMeta: meta.ObjectMeta{Name: name}})); r.code != http.StatusCreated {
			t.Fatalf("create: %d %s", r.code, r.body)
		}
	}
	r := doMedia(t, ts.URL+sprocketURL+"?watch=true&timeoutSeconds=1&resourceVersion=0", "GET", pb, "", nil)
	stream := r.body
	var names []string
	for len(stream) > 0 {
		n := int(binary.BigEndian.Uint32(stream))
		frame := stream[4 : 4+n]
		stream = stream[4+n:]
		typ, obj := splitEvent(t, frame)
		var s sprocket
		if _, err := protobuf.New().Decode(obj, &s); err != nil {
			t.Fatalf("event object: %v", err)
		}
		if typ != meta.Added || s.Kind != "Sprocket" {
			t.Errorf("event %s %+v", typ, s)
		}
		names = append(names, s.Name)
	}
	if strings.Join(names, ",") != "a,b" {
		t.Errorf("events for %v, want a and b", names)
	}
}

// splitEvent reads WatchEvent{type=1, object=RawExtension{raw=1}}.
func splitEvent(t *testing.T, frame []byte) (string, []byte) {
	t.Helper()
	var typ string
	var raw []byte
	for len(frame) > 0 {
		num, _, n := protowire.ConsumeTag(frame)
		b, m := protowire.ConsumeBytes(frame[n:])
		if n < 0 || m < 0 {
			t.Fatalf("malformed frame")
		}
		frame = frame[n+m:]
		switch num {
		case 1:
			typ = string(b)
		case 2:
			_, _, k := protowire.ConsumeTag(b)
			raw, _ = protowire.ConsumeBytes(b[k:])
		}
	}
	return typ, raw
}
