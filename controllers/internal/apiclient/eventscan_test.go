package apiclient

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sameAsGeneral decodes frame with decodeEvent and decodeEventGeneral
// and fails unless they give the same Event, and both or neither an
// error.
func sameAsGeneral(t *testing.T, frame string) {
	t.Helper()
	sameAsGeneralSharing(t, new(watchTexts), frame)
}

// sameAsGeneralSharing is sameAsGeneral with the strings of texts, as
// the events of one watch share them.
func sameAsGeneralSharing(t *testing.T, texts *watchTexts, frame string) {
	t.Helper()
	got, gotErr := texts.decode([]byte(frame))
	want, wantErr := decodeEventGeneral([]byte(frame))
	if (gotErr == nil) != (wantErr == nil) {
		t.Fatalf("%s:\nerror %v, the general way %v", frame, gotErr, wantErr)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("%s (-the general way +got):\n%s", frame, diff)
	}
}

// TestScanEventTakesServerFrames: the frames of the table in the server's
// shape are read in one pass, as the general way reads them; the others
// are left to it.
func TestScanEventTakesServerFrames(t *testing.T) {
	for _, tt := range []struct {
		name, frame string
		scanned     bool
	}{
		{"server order", eventFrames[0].frame, true},
		{"apiVersion first", eventFrames[2].frame, true},
		{"no apiVersion", eventFrames[1].frame, true},
		{"bookmark", eventFrames[4].frame, true},
		{"full metadata", eventFrames[9].frame, true},
		{"the key as a value elsewhere", eventFrames[7].frame, true},
		{"metadata last, spec first", `{"type":"ADDED","object":{"spec":{"a":[1,{"b":"}"}]},"kind":"W","apiVersion":"v1","metadata":{"name":"a",` + managed + `}}}`, true},
		{"members after metadata not read", `{"type":"ADDED","object":{"kind":"W","apiVersion":"v1","metadata":{"name":"a"},"spec":{"a":` + "\x01" + `}}}`, true},
		{"newline after", eventFrames[0].frame + "\n", true},
		{"unread members not read", `{"type":"ADDED","object":{"kind":"W","metadata":{"name":"a","labels":{"a":1},"annotations":[],"creationTimestamp":"today"}}}`, true},
		{"spaces", eventFrames[5].frame, false},
		{"escapes", eventFrames[8].frame, false},
		{"error", eventFrames[12].frame, false},
		{"object first", `{"object":{"kind":"W","metadata":{"name":"a"}},"type":"ADDED"}`, false},
		{"no metadata", `{"type":"ADDED","object":{"kind":"W","apiVersion":"v1","spec":{}}}`, false},
		{"empty object", `{"type":"ADDED","object":{}}`, false},
		{"metadata twice", `{"type":"ADDED","object":{"metadata":{"name":"a"},"metadata":{"name":"b"}}}`, false},
		{"kind twice", `{"type":"ADDED","object":{"kind":"A","kind":"B","metadata":{"name":"a"}}}`, false},
		{"managedFields twice", `{"type":"ADDED","object":{"metadata":{` + managed + `,"name":"a",` + managed + `}}}`, false},
		{"an unknown metadata field", eventFrames[10].frame, false},
		{"a trailing comma", `{"type":"ADDED","object":{"metadata":{"name":"a"},}}`, false},
		{"kind not a string", `{"type":"ADDED","object":{"kind":1,"metadata":{"name":"a"}}}`, false},
		{"managedFields delimited, not checked", `{"type":"ADDED","object":{"metadata":{"name":"a","managedFields":[{"a":1 2,}]}}}`, true},
		{"unterminated managedFields", `{"type":"ADDED","object":{"metadata":{"name":"a","managedFields":[{"a":"x}]}}}`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, ok := new(watchTexts).scanEvent([]byte(tt.frame)); ok != tt.scanned {
				t.Errorf("scanned: %v, want %v", ok, tt.scanned)
			}
			sameAsGeneral(t, tt.frame)
		})
	}
}

// TestDecodeEventRandom: random events, as a server writes them and
// changed, read as the general way reads them.
func TestDecodeEventRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 7))
	var texts watchTexts // shared, as by the events of one watch
	scanned := 0
	for range 20000 {
		frame, head := randomFrame(r)
		if r.IntN(4) == 0 { // change a byte of the part the scan reads
			b := []byte(frame)
			b[r.IntN(head)] = "{}[]\",: \\a1n"[r.IntN(12)]
			frame = string(b)
		}
		if _, ok := new(watchTexts).scanEvent([]byte(frame)); ok {
			scanned++
		}
		sameAsGeneralSharing(t, &texts, frame)
	}
	if scanned < 7000 {
		t.Errorf("only %d of 20000 random events scanned", scanned)
	}
}

// randomFrame returns an event frame and the length of its part up to
// the end of its metadata.
func randomFrame(r *rand.Rand) (frame string, head int) {
	var members []string
	if r.IntN(8) != 0 {
		members = append(members, `"kind":`+randomString(r))
	}
	if r.IntN(8) != 0 {
		members = append(members, `"apiVersion":`+randomString(r))
	}
	members = append(members, `"metadata":`+randomMetadata(r))
	if r.IntN(3) == 0 {
		r.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
	}
	for range r.IntN(3) {
		members = append(members, fmt.Sprintf(`"status":{"n":%d,"s":[%s,{"a":null}]}`, r.IntN(100), randomString(r)))
		if r.IntN(2) == 0 { // before the members the scan reads
			members[0], members[len(members)-1] = members[len(members)-1], members[0]
		}
	}
	typ := []string{"ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ADD\\u0045D", "X"}[r.IntN(6)]
	frame = `{"type":"` + typ + `","object":{` + strings.Join(members, ",") + "}}"
	head = strings.LastIndex(frame, "}}")
	if i := strings.Index(frame, `"status"`); i > 0 && i < head {
		head = i
	}
	return frame, head
}

func randomMetadata(r *rand.Rand) string {
	all := []string{
		`"name":` + randomString(r),
		`"namespace":` + randomString(r),
		`"uid":` + randomString(r),
		fmt.Sprintf(`"resourceVersion":"%d"`, r.IntN(1e6)),
		fmt.Sprintf(`"generation":%d`, r.IntN(10)),
		`"creationTimestamp":"2026-11-28T10:00:00Z"`,
		`"deletionTimestamp":null`,
		`"labels":{"a":` + randomString(r) + `,"app.kubernetes.io/instance":` + randomString(r) + `}`,
		`"annotations":{"n":` + randomString(r) + `}`,
		`"ownerReferences":[{"apiVersion":"v1","kind":"K","name":` + randomString(r) + `,"uid":"u","controller":true}]`,
		`"finalizers":[` + randomString(r) + `]`,
		[]string{managed, `"managedFields":[]`, `"managedFields":null`}[r.IntN(3)],
	}
	var chosen []string
	for _, i := range r.Perm(len(all)) {
		if r.IntN(2) == 0 {
			chosen = append(chosen, all[i])
		}
	}
	return "{" + strings.Join(chosen, ",") + "}"
}

// randomString returns a JSON string, now and then with escapes or
// bytes that are not UTF-8.
func randomString(r *rand.Rand) string {
	s := []string{"w", "web-1", "kube-system", "é", `q\"t`, `\u0041`, "\xff", "}{][", ""}[r.IntN(9)]
	if r.IntN(3) == 0 {
		b, _ := json.Marshal(strings.Repeat("x", r.IntN(20)))
		return string(b)
	}
	return `"` + s + `"`
}

// widgetFrame is a watch event of a Widget as the server writes it.
const widgetFrame = `{"type":"ADDED","object":{"kind":"Widget","apiVersion":"example.com/v1","metadata":{"name":"w-12345","namespace":"default","uid":"0b7e5a4c-1f2d-4c3b-9a8e-7d6c5b4a3f21","resourceVersion":"4242","generation":1,"creationTimestamp":"2026-11-28T10:00:00Z","labels":{"app":"web","tier":"front","app.kubernetes.io/instance":"w-12345"},"annotations":{"note":"x"},` +
	`"managedFields":[{"manager":"bench","operation":"Update","apiVersion":"example.com/v1","time":"2026-11-28T10:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:annotations":{".":{},"f:note":{}},"f:labels":{".":{},"f:app":{},"f:app.kubernetes.io/instance":{},"f:tier":{}}},"f:spec":{".":{},"f:color":{},"f:size":{},"f:replicas":{},"f:ports":{}}}}]},` +
	`"spec":{"color":"blue","size":3,"replicas":2,"ports":[{"name":"http","port":80},{"name":"https","port":443}]},"status":{"phase":"Pending","conditions":[{"type":"Ready","status":"False","reason":"Creating","message":"the widget is being made"}]}}}` + "\n"

func BenchmarkDecodeEvent(b *testing.B) {
	for _, bc := range []struct {
		name   string
		decode func([]byte) (Event, error)
	}{{"scan", decodeEvent}, {"general", decodeEventGeneral}} {
		b.Run(bc.name, func(b *testing.B) {
			frame := []byte(widgetFrame)
			b.ReportAllocs()
			b.SetBytes(int64(len(frame)))
			for range b.N {
				if _, err := bc.decode(frame); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestWatchSharesTexts: the events of one watch share their kind and
// apiVersion strings, which are then not made anew for every event.
func TestWatchSharesTexts(t *testing.T) {
	frame := []byte(widgetFrame)
	var texts watchTexts
	if _, err := texts.decode(frame); err != nil {
		t.Fatal(err)
	}
	shared := testing.AllocsPerRun(100, func() { _, _ = texts.decode(frame) })
	alone := testing.AllocsPerRun(100, func() { _, _ = new(watchTexts).decode(frame) })
	if shared > alone-2 {
		t.Errorf("an event of a watch allocates %v times, one alone %v: kind and apiVersion are not shared", shared, alone)
	}
}
