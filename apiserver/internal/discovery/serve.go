package discovery

import (
	"net/http"

	"github.com/kapi-dev/kapi/apiserver/internal/responsewriters"
	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/openapi"
)

// ServeAPI answers /api, the core group's versions.
func (d *Docs) ServeAPI(w http.ResponseWriter, r *http.Request) {
	serveDiscovery(w, r, d.apiVersions, d.aggregatedCore, d.aggregatedCoreETag)
}

// ServeAPIs answers /apis, the named groups.
func (d *Docs) ServeAPIs(w http.ResponseWriter, r *http.Request) {
	serveDiscovery(w, r, d.groupList, d.aggregatedGroups, d.aggregatedGroupsETag)
}

// serveDiscovery answers /api or /apis in the aggregated format when the
// client asks for it, and in the legacy format otherwise.
func serveDiscovery(w http.ResponseWriter, r *http.Request, legacy, aggregated []byte, etag string) {
	for _, a := range codec.ParseAccept(r.Header.Get("Accept")) {
		if a.Q == 0 {
			continue
		}
		if a.Type == "application/json" && a.Param("as") == "APIGroupDiscoveryList" &&
			a.Param("g") == "apidiscovery.k8s.io" && a.Param("v") == "v2" {
			w.Header().Set("Vary", "Accept")
			w.Header().Set("Etag", etag)
			if r.Header.Get("If-None-Match") == etag {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			responsewriters.WriteRaw(w, http.StatusOK, aggregatedDiscoveryType, aggregated)
			return
		}
		if a.Param("as") == "" && (a.Type == "application/json" || a.Type == "*/*" || a.Type == "application/*") {
			break
		}
	}
	w.Header().Set("Vary", "Accept")
	responsewriters.WriteRaw(w, http.StatusOK, legacyDiscoveryType, legacy)
}

// ServeOpenAPI answers /openapi/v3/KEY, the OpenAPI document of a
// group-version ("apis/G/V" or "api/v1").
func (d *Docs) ServeOpenAPI(w http.ResponseWriter, r *http.Request, key string) {
	doc, ok := d.openapiDocs[key]
	if !ok {
		responsewriters.WriteRaw(w, http.StatusNotFound, "text/plain; charset=utf-8", []byte("404 page not found\n"))
		return
	}
	etag := `"` + openapi.Hash(doc) + `"`
	w.Header().Set("Etag", etag)
	if h := r.URL.Query().Get("hash"); h != "" && `"`+h+`"` == etag {
		// A request naming the current hash may be cached for good.
		w.Header().Set("Cache-Control", "public, immutable")
		w.Header().Set("Expires", "Thu, 01 Jan 2099 00:00:00 GMT")
	} else {
		w.Header().Set("Cache-Control", "no-cache, private")
	}
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	responsewriters.WriteRaw(w, http.StatusOK, "application/json", doc)
}

// ServeOpenAPIV2 answers /openapi/v2, the Swagger 2.0 document of every
// served kind, as JSON; a client that accepts only another form (the
// gnostic protobuf client-go asks for first) gets 406.
func (d *Docs) ServeOpenAPIV2(w http.ResponseWriter, r *http.Request) {
	if d.openapiV2 == nil {
		responsewriters.WriteRaw(w, http.StatusNotFound, "text/plain; charset=utf-8", []byte("404 page not found\n"))
		return
	}
	if !acceptsJSON(r.Header.Get("Accept")) {
		responsewriters.WriteRaw(w, http.StatusNotAcceptable, "text/plain; charset=utf-8", []byte("406 Not Acceptable\n"))
		return
	}
	etag := string(d.openapiV2ETag)
	w.Header().Set("Etag", etag)
	w.Header().Set("Cache-Control", "no-cache, private")
	w.Header().Set("Vary", "Accept")
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	responsewriters.WriteRaw(w, http.StatusOK, "application/json", d.openapiV2)
}

// acceptsJSON reports whether an Accept header lets the answer be JSON
// (no header does).
func acceptsJSON(accept string) bool {
	if accept == "" {
		return true
	}
	for _, a := range codec.ParseAccept(accept) {
		if a.Q > 0 && (a.Type == "application/json" || a.Type == "*/*" || a.Type == "application/*") {
			return true
		}
	}
	return false
}
