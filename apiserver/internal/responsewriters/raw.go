package responsewriters

import (
	"encoding/json"
	"net/http"
)

// WriteJSON writes v as JSON, or a bare 500 Status when v does not
// encode. It is for the server's own documents (version, discovery),
// which are small and never compressed.
func WriteJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		code, b = http.StatusInternalServerError, []byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","code":500}`)
	}
	WriteRaw(w, code, "application/json", b)
}

// WriteRaw writes b as it is, with the given code and Content-Type.
func WriteRaw(w http.ResponseWriter, code int, contentType string, b []byte) {
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(code)
	_, _ = w.Write(b)
}
