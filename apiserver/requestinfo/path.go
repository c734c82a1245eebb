package requestinfo

import (
	"net/http"
	"net/url"
	"strings"
)

// IsTrue reads a boolean query parameter as kube-apiserver does.
func IsTrue(v string) bool { return v == "true" || v == "1" }

// Path is a request's path as routing and the metric labels read
// it, worked out once per request.
type Path struct {
	// Escaped is the escaped path without a final slash: routing on it,
	// an encoded slash stays inside its segment (and then fails name
	// validation) rather than making one.
	Escaped string
	// Parts are its unescaped segments; OK is false when one does not
	// unescape.
	Parts []string
	OK    bool
	// Resolved is set by routing when the path named a served resource.
	Resolved bool
	// store holds the segments of paths of up to 10 segments, which
	// resource paths are (/apis/g/v/namespaces/ns/r/name/sub and a
	// watch).
	store [10]string
}

// Parse reads r's path into p, reusing p's room for the segments.
func (p *Path) Parse(r *http.Request) {
	p.Escaped = strings.TrimSuffix(r.URL.EscapedPath(), "/")
	p.Parts, p.OK = appendSegments(p.store[:0], p.Escaped)
}

// appendSegments appends the unescaped segments of p, trimmed of slashes,
// to dst; false when one does not unescape.
func appendSegments(dst []string, p string) ([]string, bool) {
	p = strings.Trim(p, "/")
	// Most paths have nothing escaped: their segments are cut as they are.
	escaped := strings.IndexByte(p, '%') >= 0
	for p != "" {
		seg := p
		if i := strings.IndexByte(p, '/'); i >= 0 {
			seg, p = p[:i], p[i+1:]
		} else {
			p = ""
		}
		if escaped {
			u, err := url.PathUnescape(seg)
			if err != nil {
				return nil, false
			}
			seg = u
		}
		dst = append(dst, seg)
	}
	return dst, true
}
