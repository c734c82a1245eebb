package resourceversion

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/kapi-dev/kapi/status"
)

// ContinueToken is the state a continue token carries.
type ContinueToken struct {
	// Revision is the revision the paged list is read at. A negative
	// Revision asks for the store's current revision: kube-apiserver puts -1
	// in the token it offers with a 410 when the original revision has been
	// compacted (see [ContinueExpired]).
	Revision int64
	// StartKey is where the next page starts, inclusive, as a key relative to
	// the resource's key prefix (the prefix ends in "/"; StartKey has no
	// leading "/"): the page holds the keys k with k >= prefix+StartKey.
	// kube-apiserver always writes the last returned key followed by "\x00",
	// the smallest key after it, so for its tokens this is "strictly after
	// the last key"; [ContinueAfter] builds such a token. The empty StartKey
	// is the start of the prefix.
	StartKey string
}

// continueToken is the wire form: JSON, then unpadded URL-safe base64.
type continueToken struct {
	APIVersion      string `json:"v"`
	ResourceVersion int64  `json:"rv"`
	StartKey        string `json:"start"`
}

// continueAPIVersion is the only token version kube-apiserver understands.
const continueAPIVersion = "meta.k8s.io/v1"

// errInvalidKey prefixes every token error, as in kube-apiserver.
var errInvalidKey = errors.New("continue key is not valid")

// ContinueAfter returns the token for the page after one that ended with
// lastKey (relative to the resource prefix), read at revision.
func ContinueAfter(revision int64, lastKey string) ContinueToken {
	return ContinueToken{Revision: revision, StartKey: lastKey + "\x00"}
}

// EncodeContinue returns the token's wire form, byte for byte what
// kube-apiserver emits: base64.RawURLEncoding of
//
//	{"v":"meta.k8s.io/v1","rv":<Revision>,"start":"<StartKey>"}
//
// An empty StartKey is written as "/", which decodes back to "".
func EncodeContinue(t ContinueToken) string {
	start := t.StartKey
	if start == "" {
		start = "/"
	}
	b, err := json.Marshal(continueToken{APIVersion: continueAPIVersion, ResourceVersion: t.Revision, StartKey: start})
	if err != nil { // cannot happen: a struct of strings and an int64
		panic(err)
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// DecodeContinue reads a token the way kube-apiserver does. A token it
// would refuse is a 400 BadRequest with its message, for example
//
//	invalid continue token: continue key is not valid: illegal base64 data at input byte 4
//
// Refused: bad base64 or JSON, a version other than meta.k8s.io/v1, a zero
// revision, an empty start key, and a start key that path.Clean would
// change (no "..", ".", "//" or trailing "/"), so that a token can never
// range outside the resource's prefix. A leading "/" is accepted and
// dropped. Unknown JSON fields (such as the "rc" newer servers may add) are
// ignored.
func DecodeContinue(s string) (ContinueToken, error) {
	t, err := decodeContinue(s)
	if err != nil {
		return ContinueToken{}, status.BadRequest("invalid continue token: " + err.Error())
	}
	return t, nil
}

func decodeContinue(s string) (ContinueToken, error) {
	data, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return ContinueToken{}, fmt.Errorf("%w: %v", errInvalidKey, err)
	}
	var c continueToken
	if err := json.Unmarshal(data, &c); err != nil {
		return ContinueToken{}, fmt.Errorf("%w: %v", errInvalidKey, err)
	}
	if c.APIVersion != continueAPIVersion {
		return ContinueToken{}, fmt.Errorf("%w: server does not recognize this encoded version %v", errInvalidKey, c.APIVersion)
	}
	if c.ResourceVersion == 0 {
		return ContinueToken{}, fmt.Errorf("%w: incorrect encoded start resourceVersion (version %s)", errInvalidKey, continueAPIVersion)
	}
	if c.StartKey == "" {
		return ContinueToken{}, fmt.Errorf("%w: encoded start key empty (version %s)", errInvalidKey, continueAPIVersion)
	}
	key := c.StartKey
	if !strings.HasPrefix(key, "/") {
		key = "/" + key
	}
	if path.Clean(key) != key {
		return ContinueToken{}, fmt.Errorf("%w: %v", errInvalidKey, c.StartKey)
	}
	return ContinueToken{Revision: c.ResourceVersion, StartKey: key[1:]}, nil
}

// inconsistentContinue is kube-apiserver's message for a continuation whose
// revision has been compacted.
const inconsistentContinue = "The provided continue parameter is too old " +
	"to display a consistent list result. You can start a new list without " +
	"the continue parameter, or use the continue token in this response to " +
	"retrieve the remainder of the results. Continuing with the provided " +
	"token results in an inconsistent list - objects that were created, " +
	"modified, or deleted between the time the first chunk was returned " +
	"and now may show up in the list."

// ContinueExpired is the 410 Expired kube-apiserver answers when the
// revision of continue token t has been compacted. Its metadata.continue
// holds a token for the same StartKey at Revision -1, which continues the
// list at the current revision.
func ContinueExpired(t ContinueToken) error {
	e := status.Expired(inconsistentContinue)
	e.Status.ListMeta.Continue = EncodeContinue(ContinueToken{Revision: -1, StartKey: t.StartKey})
	return e
}
