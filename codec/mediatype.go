package codec

import (
	"fmt"
	"mime"
	"sort"
	"strconv"
	"strings"
)

// MediaType is a parsed media type: "application/json" and its
// parameters, such as as=Table;g=meta.k8s.io;v=v1.
type MediaType struct {
	// Type is the lower-cased "type/subtype".
	Type   string
	Params map[string]string
}

// String renders the type with its parameters in a stable order.
func (m MediaType) String() string {
	if len(m.Params) == 0 {
		return m.Type
	}
	keys := make([]string, 0, len(m.Params))
	for k := range m.Params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(m.Type)
	for _, k := range keys {
		b.WriteByte(';')
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(m.Params[k])
	}
	return b.String()
}

// Param returns a parameter's value, "" when absent.
func (m MediaType) Param(name string) string { return m.Params[name] }

// ParseMediaType parses a Content-Type or one Accept entry.
func ParseMediaType(s string) (MediaType, error) {
	t, params, err := mime.ParseMediaType(s)
	if err != nil {
		return MediaType{}, fmt.Errorf("invalid media type %q: %w", s, err)
	}
	if len(params) == 0 {
		params = nil
	}
	return MediaType{Type: t, Params: params}, nil
}

// Accepted is one entry of an Accept header.
type Accepted struct {
	MediaType
	Q float64
}

// ParseAccept splits an Accept header into its entries ordered by
// preference: higher q first, then more specific types, then header order.
// Malformed entries, and types without a subtype, are skipped, as
// kube-apiserver skips them; a bare "*" is read as "*/*", as it is there.
func ParseAccept(header string) []Accepted {
	if strings.TrimSpace(header) == "" {
		return nil
	}
	parts := splitAccept(header)
	out := make([]Accepted, 0, len(parts))
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		mt, err := ParseMediaType(p)
		if err != nil {
			continue
		}
		if mt.Type == "*" {
			mt.Type = "*/*"
		}
		if !strings.Contains(mt.Type, "/") {
			continue
		}
		q := 1.0
		if qs, ok := mt.Params["q"]; ok {
			if v, err := strconv.ParseFloat(qs, 64); err == nil && v >= 0 && v <= 1 {
				q = v
			}
			delete(mt.Params, "q")
			if len(mt.Params) == 0 {
				mt.Params = nil
			}
		}
		out = append(out, Accepted{MediaType: mt, Q: q})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Q != out[j].Q {
			return out[i].Q > out[j].Q
		}
		return specificity(out[i].Type) > specificity(out[j].Type)
	})
	return out
}

func specificity(t string) int {
	switch {
	case t == "*/*":
		return 0
	case strings.HasSuffix(t, "/*"):
		return 1
	}
	return 2
}

// splitAccept splits on commas outside quoted parameter values.
func splitAccept(h string) []string {
	var parts []string
	quoted := false
	start := 0
	for i := 0; i < len(h); i++ {
		switch h[i] {
		case '"':
			quoted = !quoted
		case ',':
			if !quoted {
				parts = append(parts, h[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, h[start:])
}
