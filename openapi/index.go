package openapi

import (
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
)

// Hash returns the hash kube-apiserver puts in a document's URL and ETag:
// the SHA-512 of the document, in upper-case hex.
func Hash(doc []byte) string {
	sum := sha512.Sum512(doc)
	return strings.ToUpper(hex.EncodeToString(sum[:]))
}

// Index builds the /openapi/v3 discovery document. docs maps each document's
// path below /openapi/v3, such as "apis/stable.example.com/v1" or "api/v1",
// to its bytes; the index points at
// /openapi/v3/<path>?hash=<[Hash] of the bytes>, so that clients caching by
// URL see a new URL whenever a document changes.
func Index(docs map[string][]byte) ([]byte, error) {
	type entry struct {
		ServerRelativeURL string `json:"serverRelativeURL"`
	}
	paths := make(map[string]entry, len(docs))
	for key, doc := range docs {
		if err := checkIndexKey(key); err != nil {
			return nil, err
		}
		paths[key] = entry{ServerRelativeURL: "/openapi/v3/" + key + "?hash=" + Hash(doc)}
	}
	return json.Marshal(struct {
		Paths map[string]entry `json:"paths"`
	}{paths})
}

// checkIndexKey accepts a relative path of non-empty segments that needs no
// escaping in a URL.
func checkIndexKey(key string) error {
	if key == "" {
		return fmt.Errorf("openapi: empty index path")
	}
	for _, seg := range strings.Split(key, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return fmt.Errorf("openapi: index path %q has an empty or relative segment", key)
		}
		if strings.ContainsAny(seg, "?#%{} ") {
			return fmt.Errorf("openapi: index path %q has a character that needs escaping", key)
		}
	}
	return nil
}
