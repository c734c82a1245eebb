package resourceversion

import (
	"encoding/base64"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/status"
)

// FuzzDecodeContinue checks that decoding never panics, that whatever it
// accepts stays within the prefix, and that encoding an accepted token and
// decoding it again gives the same token.
func FuzzDecodeContinue(f *testing.F) {
	for _, s := range []string{
		`{"v":"meta.k8s.io/v1","rv":10245,"start":"ns/pod-1\u0000"}`,
		`{"v":"meta.k8s.io/v1","rv":-1,"start":"/"}`,
		`{"v":"meta.k8s.io/v1","rv":5,"start":"../x"}`,
		`{"v":"meta.k8s.io/v1","rv":5,"start":"a\ud800b","rc":3}`,
		`null`, `[]`, ``,
	} {
		f.Add(base64.RawURLEncoding.EncodeToString([]byte(s)))
	}
	f.Add("!!")
	f.Add(tok)
	f.Fuzz(func(t *testing.T, s string) {
		got, err := DecodeContinue(s)
		if err != nil {
			return
		}
		if got.Revision == 0 {
			t.Fatalf("accepted a zero revision: %q", s)
		}
		if strings.HasPrefix(got.StartKey, "/") || got.StartKey == ".." || strings.HasPrefix(got.StartKey, "../") {
			t.Fatalf("accepted a key outside the prefix: %q from %q", got.StartKey, s)
		}
		again, err := DecodeContinue(EncodeContinue(got))
		if err != nil || again != got {
			t.Fatalf("round trip of %+v (from %q) = %+v, %v", got, s, again, err)
		}
	})
}

// FuzzParse checks that no query makes a parser panic, and that every
// rejection is a Status.
func FuzzParse(f *testing.F) {
	f.Add("resourceVersion=7&limit=5")
	f.Add("sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=0")
	f.Add("continue=" + tok)
	f.Fuzz(func(t *testing.T, raw string) {
		q := parseLoose(raw)
		for _, err := range []error{errOf(ParseGet(q)), errOf(ParseList(q)), errOf(ParseWatch(q))} {
			if err != nil && statusCode(err) == 0 {
				t.Fatalf("%q: error without a Status: %v", raw, err)
			}
		}
	})
}

// parseLoose keeps whatever url.ParseQuery manages to parse.
func parseLoose(raw string) url.Values {
	q, _ := url.ParseQuery(raw)
	return q
}

func errOf[T any](_ T, err error) error { return err }

// statusCode is the code of a *status.Error, 0 for any other error.
func statusCode(err error) int32 {
	var se *status.Error
	if errors.As(err, &se) {
		return se.Status.Code
	}
	return 0
}
