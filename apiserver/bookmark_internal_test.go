package apiserver

import (
	"bytes"
	"testing"

	"github.com/kapi-dev/kapi/apiserver/internal/handlers"
	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/meta"
)

// TestBookmarkObjectEncodes checks that every serializer that frames
// watch streams encodes a bookmark's object, and that it decodes as the
// watched kind with the resourceVersion: a bookmark that fails to encode
// would be dropped.
func TestBookmarkObjectEncodes(t *testing.T) {
	s := newServer(Options{})
	for _, mt := range s.Codecs.MediaTypes() {
		ser, _ := s.Codecs.Lookup(mt)
		if _, ok := ser.(codec.WatchEncoder); !ok {
			continue
		}
		t.Run(mt, func(t *testing.T) {
			obj := &handlers.BookmarkObject{TypeMeta: meta.TypeMeta{Kind: "Thing", APIVersion: "rows.example.com/v1"}}
			obj.ResourceVersion = "42"
			obj.Annotations = map[string]string{meta.InitialEventsAnnotation: "true"}
			var buf bytes.Buffer
			if err := ser.Encode(&buf, obj); err != nil {
				t.Fatal(err)
			}
			var back rowThing
			if _, err := ser.Decode(buf.Bytes(), &back); err != nil {
				t.Fatal(err)
			}
			if back.ResourceVersion != "42" || back.Annotations[meta.InitialEventsAnnotation] != "true" {
				t.Errorf("decoded %+v", back)
			}
		})
	}
}
