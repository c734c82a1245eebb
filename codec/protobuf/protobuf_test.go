package protobuf_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/codec/protobuf"
	"github.com/kapi-dev/kapi/meta"
)

func encode(t *testing.T, s *protobuf.Serializer, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := s.Encode(&buf, v); err != nil {
		t.Fatalf("Encode(%T): %v", v, err)
	}
	return buf.Bytes()
}

// body returns the raw field of an enveloped message.
func body(t *testing.T, data []byte) []byte {
	t.Helper()
	if !bytes.HasPrefix(data, []byte("k8s\x00")) {
		t.Fatalf("no magic: % x", data)
	}
	msg := data[4:]
	for len(msg) > 0 {
		num, typ, n := protowire.ConsumeTag(msg)
		msg = msg[n:]
		b, m := protowire.ConsumeBytes(msg)
		if typ != protowire.BytesType || m < 0 {
			t.Fatalf("malformed envelope: % x", data)
		}
		msg = msg[m:]
		if num == 2 {
			return b
		}
	}
	t.Fatalf("no raw field: % x", data)
	return nil
}

func hexOf(s string) []byte {
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		panic(err)
	}
	return b
}

type (
	optInt struct {
		P *int64 `protobuf:"varint,1,opt,name=p"`
	}
	strList struct {
		L []string `protobuf:"bytes,1,rep,name=l"`
	}
	strMap struct {
		M map[string]string `protobuf:"bytes,1,rep,name=m"`
	}
	bytesMap struct {
		M map[string][]byte `protobuf:"bytes,1,rep,name=m"`
	}
	rawBytes struct {
		B []byte `protobuf:"bytes,1,opt,name=b"`
	}
	oneTime struct {
		T meta.Time `protobuf:"bytes,1,opt,name=t"`
	}
	oneRaw struct {
		R json.RawMessage `protobuf:"bytes,1,opt,name=r"`
	}
	oneF64 struct {
		F float64 `protobuf:"fixed64,1,opt,name=f"`
	}
	reversed struct {
		Second string `protobuf:"bytes,2,opt,name=second"`
		First  int32  `protobuf:"varint,1,opt,name=first"`
	}
)

func TestEncodeFields(t *testing.T) {
	s := protobuf.New()
	cases := []struct {
		name string
		v    any
		want string // hex of the raw field
	}{
		{"zero scalars are written", &inner{}, "0a00 1000"},
		{"negative int32 is sign-extended", &inner{A: "x", B: -1}, "0a0178 10ffffffffffffffffff01"},
		{"nil pointer is left out", &optInt{}, ""},
		{"zero pointer is written", &optInt{P: new(int64)}, "0800"},
		{"empty slice is left out", &strList{L: []string{}}, ""},
		{"every element is written", &strList{L: []string{"", "a"}}, "0a00 0a0161"},
		{"empty map is left out", &strMap{M: map[string]string{}}, ""},
		{"map entries in key order, empty values written", &strMap{M: map[string]string{"b": "2", "a": ""}}, "0a05 0a0161 1200 0a06 0a0162 120132"},
		{"nil bytes map value is left out", &bytesMap{M: map[string][]byte{"k": nil, "l": {}}}, "0a03 0a016b 0a05 0a016c 1200"},
		{"nil bytes are left out", &rawBytes{}, ""},
		{"empty bytes are written", &rawBytes{B: []byte{}}, "0a00"},
		{"zero time is an empty message", &oneTime{}, "0a00"},
		{"time is seconds and zero nanos", &oneTime{T: meta.NewTime(time.Unix(1, 0))}, "0a04 0801 1000"},
		{"nil raw extension is empty", &oneRaw{}, "0a00"},
		{"raw extension wraps its bytes", &oneRaw{R: json.RawMessage("ab")}, "0a04 0a026162"},
		{"double is fixed64", &oneF64{F: 1}, "09 000000000000f03f"},
		{"fields in number order", &reversed{Second: "s", First: 1}, "0801 120173"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := body(t, encode(t, s, c.v))
			if want := hexOf(c.want); !bytes.Equal(got, want) {
				t.Errorf("got % x, want % x", got, want)
			}
		})
	}
}

func TestEnvelope(t *testing.T) {
	s := protobuf.New()
	got := encode(t, s, &meta.Status{TypeMeta: meta.TypeMeta{Kind: "Status", APIVersion: "v1"}, Code: 404})
	// magic, typeMeta{apiVersion "v1", kind "Status"}, raw{metadata{three empty strings}, status, message, reason, code},
	// then empty contentEncoding and contentType.
	want := hexOf("6b387300 0a0c 0a027631 1206537461747573 1211 0a06 0a00 1200 1a00 1200 1a00 2200 309403 1a00 2200")
	if !bytes.Equal(got, want) {
		t.Errorf("got  % x\nwant % x", got, want)
	}
}

func TestRoundTrip(t *testing.T) {
	s := protobuf.New()
	str, i64, yes := "s", int64(-7), true
	tm := meta.NewTime(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	micro := meta.NewMicroTime(time.Date(2030, 1, 1, 0, 0, 0, 123456789, time.UTC)) // kept: .123456
	full := &everything{
		TypeMeta: meta.TypeMeta{Kind: "Everything", APIVersion: "test/v1"},
		Str:      "héllo", Bytes: []byte{0, 1}, Bool: true, I32: -5, I64: 1 << 40, U32: 7, U64: 1 << 63,
		F32: 1.5, F64: -2.25, Time: tm, Raw: json.RawMessage(`{"a":1}`), Msg: inner{A: "a", B: 2},
		PStr: &str, PI64: &i64, PBool: &yes, PMsg: &inner{}, PTime: &tm,
		Strs: []string{"", "x"}, I64s: []int64{-1, 0, 1}, Msgs: []inner{{}, {A: "b"}},
		StrMap: map[string]string{"k": "v", "": ""}, BytesMap: map[string][]byte{"b": {9}, "e": {}},
		MsgMap: map[string]inner{"m": {B: 3}}, IntMap: map[string]int32{"n": -9},
		Self:  &everything{Str: "nested", Msg: inner{A: "deep"}},
		Named: meta.StatusReasonNotFound, BytesList: [][]byte{{}, {1}}, Times: []meta.Time{tm, {}},
		F64s: []float64{0.5}, TimeMap: map[string]meta.Time{"t": tm},
		Micro: micro, PMicro: &micro,
	}
	cases := []struct {
		name string
		v    any
	}{
		{"everything", full},
		{"zero", &everything{}},
		{"widget", sampleWidget()},
		{"status", &meta.Status{TypeMeta: meta.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: meta.StatusFailure, Code: 409,
			Details: &meta.StatusDetails{Name: "n", Causes: []meta.StatusCause{{Type: meta.CauseTypeFieldValueInvalid, Field: "spec"}}}}},
		{"delete options", &meta.DeleteOptions{GracePeriodSeconds: &i64, DryRun: []string{"All"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := encode(t, s, c.v)
			got := reflect.New(reflect.TypeOf(c.v).Elem()).Interface()
			strict, err := s.Decode(data, got)
			if err != nil || strict != nil {
				t.Fatalf("Decode: %v %v", strict, err)
			}
			if diff := cmp.Diff(c.v, got, cmp.AllowUnexported(everything{})); diff != "" {
				t.Errorf("round trip changed the value (-want +got):\n%s", diff)
			}
			if again := encode(t, s, got); !bytes.Equal(again, data) {
				t.Errorf("re-encoding differs")
			}
		})
	}
}

func TestDecodeMerges(t *testing.T) {
	s := protobuf.New()
	// msg {a:"x"}, msg {b:2}: a second singular message merges into the
	// first; a packed repeated int64 field (19) is accepted; unknown field
	// 99 is skipped.
	raw := hexOf("6203 0a0178 6202 1002 9a01 03 7f0001 98 06 05")
	data := envelope(raw)
	var got everything
	if _, err := s.Decode(data, &got); err != nil {
		t.Fatal(err)
	}
	if got.Msg != (inner{A: "x", B: 2}) {
		t.Errorf("got %+v", got)
	}
	if diff := cmp.Diff([]int64{127, 0, 1}, got.I64s); diff != "" {
		t.Errorf("I64s (-want +got):\n%s", diff)
	}
}

// envelope wraps a raw body with an empty typeMeta.
func envelope(raw []byte) []byte {
	b := []byte("k8s\x00\x0a\x00\x12")
	b = protowire.AppendVarint(b, uint64(len(raw)))
	return append(b, raw...)
}

func TestDecodeErrors(t *testing.T) {
	s := protobuf.New()
	var w widget
	deep := []byte{}
	for i := 0; i < 1100; i++ {
		deep = append(protowire.AppendVarint(append([]byte{0xca, 0x01}, nil...), uint64(len(deep))), deep...)
	}
	cases := []struct {
		name string
		data []byte
		into any
		want string
	}{
		{"empty", nil, &w, "empty data"},
		{"not protobuf", []byte(`{"kind":"Widget"}`), &w, "does not appear to be a protobuf message"},
		{"magic only", []byte("k8s\x00"), &w, "empty body"},
		{"truncated envelope", []byte("k8s\x00\x0a\x05\x0a"), &w, "unexpected EOF"},
		{"truncated body", envelope(hexOf("0a05 0a")), &w, "unexpected EOF"},
		{"wrong wire type", envelope(hexOf("1001")), &w, "wire type"},
		{"bad varint", envelope(hexOf("1a02 08ff")), &w, "unexpected EOF"},
		{"content encoding", append(envelope(nil), hexOf("1a04 677a6970")...), &w, `content encoding "gzip"`},
		{"nil target", envelope(nil), (*widget)(nil), "cannot decode into"},
		{"non-pointer target", envelope(nil), widget{}, "cannot decode into"},
		{"unsupported target", envelope(nil), &struct{ A string }{}, "has no protobuf tag"},
		{"interface items", envelope(hexOf("1200")), &meta.List{}, "cannot decode into"},
		{"too deep", envelope(deep), &everything{}, "decodes to more than 8 times its size"}, // the allocation bound comes before the depth bound
		{"bad map key", envelope(hexOf("aa0102 0801")), &everything{}, "map key"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := s.Decode(c.data, c.into)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want one containing %q", err, c.want)
			}
		})
	}
}

func TestSupports(t *testing.T) {
	s := protobuf.New()
	type untagged struct {
		meta.TypeMeta
		meta.ObjectMeta
	}
	type badMap struct {
		M map[int]string `protobuf:"bytes,1,rep,name=m"`
	}
	type dupNumber struct {
		A string `protobuf:"bytes,1,opt,name=a"`
		B string `protobuf:"bytes,1,opt,name=b"`
	}
	type badTag struct {
		A string `protobuf:"bytes"`
	}
	type chanField struct {
		C chan int `protobuf:"bytes,1,opt,name=c"`
	}
	type single struct {
		O meta.Object `protobuf:"bytes,1,opt,name=o"`
	}
	cases := []struct {
		v    any
		want bool
	}{
		{&widget{}, true},
		{widget{}, true},
		{&everything{}, true},
		{&meta.Status{}, true},
		{&meta.List{}, true},
		{&meta.DeleteOptions{}, true},
		{&meta.WatchEvent{}, true},
		{&meta.Unstructured{}, false},
		{&untagged{}, false},
		{&badMap{}, false},
		{&dupNumber{}, false},
		{&badTag{}, false},
		{&chanField{}, false},
		{&single{}, false},
		{"a string", false},
	}
	for _, c := range cases {
		if got := s.Supports(reflect.TypeOf(c.v)); got != c.want {
			t.Errorf("Supports(%T) = %v, want %v", c.v, got, c.want)
		}
		if got := codec.Supports(s, reflect.TypeOf(c.v)); got != c.want {
			t.Errorf("codec.Supports(%T) = %v, want %v", c.v, got, c.want)
		}
	}
	if !codec.Supports(codec.JSON{}, reflect.TypeOf(&meta.Unstructured{})) {
		t.Error("JSON refuses a type")
	}
	if err := s.Encode(&bytes.Buffer{}, &meta.Unstructured{}); err == nil || !strings.Contains(err.Error(), "no protobuf tag") {
		t.Errorf("Encode(Unstructured) = %v", err)
	}
}

func TestEncodeListItems(t *testing.T) {
	s := protobuf.New()
	list := &meta.List{TypeMeta: meta.TypeMeta{Kind: "WidgetList", APIVersion: "stable.example.com/v1"},
		ListMeta: meta.ListMeta{ResourceVersion: "9"}, Items: []meta.Object{sampleWidget(), &widget{}}}
	data := encode(t, s, list)
	// The typed form of the list reads the same bytes.
	type widgetList struct {
		meta.TypeMeta `json:",inline"`
		meta.ListMeta `json:"metadata" protobuf:"bytes,1,opt,name=metadata"`
		Items         []widget `json:"items" protobuf:"bytes,2,rep,name=items"`
	}
	var got widgetList
	if _, err := s.Decode(data, &got); err != nil {
		t.Fatal(err)
	}
	first := *sampleWidget()
	first.TypeMeta = meta.TypeMeta{} // items travel without their kind
	want := widgetList{TypeMeta: list.TypeMeta, ListMeta: list.ListMeta, Items: []widget{first, {}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for _, items := range [][]meta.Object{{nil}, {&meta.Unstructured{}}, {(*widget)(nil)}} {
		err := s.Encode(&bytes.Buffer{}, &meta.List{Items: items})
		if err == nil {
			t.Errorf("Encode of items %v succeeded", items)
		}
	}
}

func TestAppendEvent(t *testing.T) {
	s := protobuf.New()
	got := s.AppendEvent([]byte("prev"), "ADDED", []byte("OBJ"))
	// length 14, type "ADDED", object RawExtension{raw "OBJ"}.
	want := append([]byte("prev"), hexOf("0000000e 0a054144444544 1205 0a034f424a")...)
	if !bytes.Equal(got, want) {
		t.Errorf("got % x, want % x", got, want)
	}
	if s.StreamMediaType() != "application/vnd.kubernetes.protobuf;stream=watch" || s.MediaType() != protobuf.MediaType {
		t.Error("media types")
	}
}

// TestConcurrentPlans builds plans from many goroutines at once; run with
// -race.
func TestConcurrentPlans(t *testing.T) {
	s := protobuf.New()
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf bytes.Buffer
			if err := s.Encode(&buf, sampleWidget()); err != nil {
				t.Error(err)
			}
			var w widget
			if _, err := s.Decode(buf.Bytes(), &w); err != nil {
				t.Error(err)
			}
			_ = s.Supports(reflect.TypeOf(&everything{}))
		}()
	}
	wg.Wait()
}

type (
	mapsInMaps struct {
		M map[string]mapHolder `protobuf:"bytes,1,rep,name=m"`
	}
	mapHolder struct {
		N map[string]string `protobuf:"bytes,1,rep,name=n"`
	}
)

// TestMapsInMapValues: a map whose values hold maps writes each entry
// with its own value's entries, in key order at every level.
func TestMapsInMapValues(t *testing.T) {
	s := protobuf.New()
	v := &mapsInMaps{M: map[string]mapHolder{
		"b": {N: map[string]string{"y": "2", "x": "1"}},
		"a": {N: map[string]string{"z": "3"}},
	}}
	data := encode(t, s, v)
	// m{"a": {n{"z":"3"}}}, m{"b": {n{"x":"1"}, n{"y":"2"}}}
	want := hexOf("0a0d 0a0161 1208 0a06 0a017a 120133" + "0a15 0a0162 1210 0a06 0a0178 120131 0a06 0a0179 120132")
	if got := body(t, data); !bytes.Equal(got, want) {
		t.Errorf("got  % x\nwant % x", got, want)
	}
	var back mapsInMaps
	if _, err := s.Decode(data, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(v, &back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}
