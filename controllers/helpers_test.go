package controllers_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
)

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

func getJSON(h http.Handler, path string, v any) error {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	if rec.Code != http.StatusOK {
		return errors.New(rec.Body.String())
	}
	return json.Unmarshal(rec.Body.Bytes(), v)
}
