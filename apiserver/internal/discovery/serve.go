package discovery

import (
	"cmp"
	"net/http"
	"slices"
	"strconv"
	"strings"

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

// The media types of /openapi/v2: kube-apiserver accepts two spellings
// of gnostic's protobuf form and answers with the second.
const (
	openAPIV2ProtobufDeprecated = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
	openAPIV2Protobuf           = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
)

// ServeOpenAPIV2 answers /openapi/v2, the Swagger 2.0 document of every
// served kind, as JSON or as gnostic's protobuf (what client-go's
// OpenAPISchema asks for), whichever the first acceptable Accept clause
// names. Both forms share the JSON's entity tag, as in kube-apiserver,
// which tells caches apart with Vary: Accept.
func (d *Docs) ServeOpenAPIV2(w http.ResponseWriter, r *http.Request) {
	if d.openapiV2 == nil {
		responsewriters.WriteRaw(w, http.StatusNotFound, "text/plain; charset=utf-8", []byte("404 page not found\n"))
		return
	}
	w.Header().Set("Vary", "Accept")
	contentType, body := d.openAPIV2Form(r.Header.Get("Accept"))
	if body == nil {
		w.WriteHeader(http.StatusNotAcceptable)
		return
	}
	etag := string(d.openapiV2ETag)
	w.Header().Set("Etag", etag)
	w.Header().Set("Cache-Control", "no-cache, private")
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	responsewriters.WriteRaw(w, http.StatusOK, contentType, body)
}

// openAPIV2Form picks the form of /openapi/v2 the Accept header asks for
// first: JSON, or the protobuf by either spelling; wildcards choose JSON
// and no header means any. Like kube-apiserver, a clause is taken
// whatever its q, once clauses are ordered by it. A nil body is 406.
func (d *Docs) openAPIV2Form(accept string) (string, []byte) {
	if accept == "" {
		accept = "*/*"
	}
	forms := []struct {
		accepts, contentType string
		body                 []byte
	}{
		{"application/json", "application/json", d.openapiV2},
		{openAPIV2ProtobufDeprecated, openAPIV2Protobuf, d.openapiV2Protobuf},
		{openAPIV2Protobuf, openAPIV2Protobuf, d.openapiV2Protobuf},
	}
	for _, a := range openAPIV2Clauses(accept) {
		typ, sub, _ := strings.Cut(a, "/")
		for _, f := range forms {
			ftyp, fsub, _ := strings.Cut(f.accepts, "/")
			if (typ == ftyp || typ == "*") && (sub == fsub || sub == "*") && f.body != nil {
				return f.contentType, f.body
			}
		}
	}
	return "", nil
}

// openAPIV2Clauses lists an Accept header's media types, highest q
// first and, at equal q, specific before wildcards. codec.ParseAccept
// is not used: it refuses the "@" of gnostic's older media type.
func openAPIV2Clauses(accept string) []string {
	type clause struct {
		typ         string
		q           float64
		specificity int
	}
	var clauses []clause
	for _, part := range strings.Split(accept, ",") {
		typ, params, _ := strings.Cut(part, ";")
		c := clause{typ: strings.ToLower(strings.TrimSpace(typ)), q: 1}
		if c.typ == "*" {
			c.typ = "*/*"
		}
		if !strings.Contains(c.typ, "/") {
			continue
		}
		for _, p := range strings.Split(params, ";") {
			if k, v, ok := strings.Cut(strings.TrimSpace(p), "="); ok && k == "q" {
				if q, err := strconv.ParseFloat(v, 64); err == nil {
					c.q = q
				}
			}
		}
		switch {
		case c.typ == "*/*":
		case strings.HasSuffix(c.typ, "/*"):
			c.specificity = 1
		default:
			c.specificity = 2
		}
		clauses = append(clauses, c)
	}
	slices.SortStableFunc(clauses, func(a, b clause) int {
		if a.q != b.q {
			return cmp.Compare(b.q, a.q)
		}
		return cmp.Compare(b.specificity, a.specificity)
	})
	out := make([]string, len(clauses))
	for i, c := range clauses {
		out[i] = c.typ
	}
	return out
}
