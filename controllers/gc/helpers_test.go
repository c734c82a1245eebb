package gc_test

import (
	"encoding/json"
	"net/http"
)

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func mustUnmarshal(b []byte, v any) {
	if err := json.Unmarshal(b, v); err != nil {
		panic(err)
	}
}

func decode(resp *http.Response, v any) error { return json.NewDecoder(resp.Body).Decode(v) }
