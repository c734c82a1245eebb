package openapi

import (
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
)

func TestIndex(t *testing.T) {
	doc, err := Document(group, version, []Kind{widgetKind(t)})
	if err != nil {
		t.Fatal(err)
	}
	k := widgetKind(t)
	k.Subresources = nil
	changed, err := Document(group, version, []Kind{k})
	if err != nil {
		t.Fatal(err)
	}
	url := func(docs map[string][]byte, key string) string {
		b, err := Index(docs)
		if err != nil {
			t.Fatal(err)
		}
		var idx struct {
			Paths map[string]struct {
				ServerRelativeURL string `json:"serverRelativeURL"`
			} `json:"paths"`
		}
		if err := json.Unmarshal(b, &idx); err != nil {
			t.Fatal(err)
		}
		return idx.Paths[key].ServerRelativeURL
	}
	key := "apis/stable.example.com/v1"
	before := url(map[string][]byte{key: doc, "api/v1": []byte("{}")}, key)
	after := url(map[string][]byte{key: changed}, key)
	sum := sha512.Sum512(doc)
	want := "/openapi/v3/apis/stable.example.com/v1?hash=" + strings.ToUpper(hex.EncodeToString(sum[:]))
	if before != want {
		t.Errorf("serverRelativeURL = %s, want %s", before, want)
	}
	if before == after {
		t.Error("the hash did not change with the document")
	}
	if got := url(map[string][]byte{"api/v1": []byte("{}")}, "api/v1"); !strings.HasPrefix(got, "/openapi/v3/api/v1?hash=") {
		t.Errorf("core entry %s", got)
	}
}

func TestIndexErrors(t *testing.T) {
	for _, key := range []string{"", "/apis/x/v1", "apis//v1", "apis/../v1", "apis/x?y/v1"} {
		if _, err := Index(map[string][]byte{key: nil}); err == nil {
			t.Errorf("Index accepted path %q", key)
		}
	}
	b, err := Index(nil)
	if err != nil || string(b) != `{"paths":{}}` {
		t.Errorf("empty index %s, %v", b, err)
	}
}
