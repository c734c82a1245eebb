package tables

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/kapi-dev/kapi/meta"
)

// ToMap is obj as decoded JSON, for reading cells by path.
func ToMap(obj any) (map[string]any, error) {
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	return m, json.Unmarshal(b, &m)
}

// LookupPath follows a dotted path (.spec.replicas) through decoded JSON.
func LookupPath(doc map[string]any, path string) any {
	var cur any = doc
	for _, p := range strings.Split(strings.Trim(path, "."), ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[p]
	}
	return cur
}

// Cell renders a value for a column type as kube-apiserver does for
// custom resources: strings as text, numbers as numbers, dates as the age
// kubectl shows, missing values as null.
func Cell(v any, typ string) any {
	val, t, isDate := CellOf(v, typ)
	if isDate {
		return HumanDuration(time.Since(t))
	}
	return val
}

// CellOf is Cell without the clock: for a date column it returns the time
// to show as an age, with isDate true, so that the rest of a row can be
// computed once.
func CellOf(v any, typ string) (val any, t time.Time, isDate bool) {
	if v == nil {
		return nil, t, false
	}
	switch typ {
	case "string":
		if s, ok := v.(string); ok {
			return s, t, false
		}
		b, _ := json.Marshal(v)
		return string(b), t, false
	case "integer":
		if f, ok := v.(float64); ok {
			return int64(f), t, false
		}
	case "number":
		if f, ok := v.(float64); ok {
			return f, t, false
		}
	case "boolean":
		if b, ok := v.(bool); ok {
			return b, t, false
		}
	case "date":
		s, ok := v.(string)
		if !ok {
			return nil, t, false
		}
		parsed, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return "<invalid>", t, false
		}
		return nil, parsed, true
	}
	return nil, t, false
}

// ComputedCell renders a computed column's value: times as ages, zero
// times as <unknown>, everything else as it is.
func ComputedCell(v any) any {
	switch t := v.(type) {
	case meta.Time:
		if t.IsZero() {
			return "<unknown>"
		}
		return HumanDuration(time.Since(t.Time))
	case meta.MicroTime:
		if t.IsZero() {
			return "<unknown>"
		}
		return HumanDuration(time.Since(t.Time))
	}
	return v
}

// HumanDuration renders an age the way kubectl's AGE column reads: two
// significant units at most, coarser as the age grows.
func HumanDuration(d time.Duration) string { return string(AppendAge(nil, d)) }

// AppendAge appends HumanDuration(d).
func AppendAge(dst []byte, d time.Duration) []byte {
	if d < -time.Second {
		return append(dst, "<invalid>"...)
	}
	if d < 0 {
		d = 0
	}
	s := int64(d / time.Second)
	m, h := s/60, s/3600
	days, years := h/24, h/(24*365)
	n := func(dst []byte, v int64, unit byte) []byte { return append(strconv.AppendInt(dst, v, 10), unit) }
	switch {
	case s < 120:
		return n(dst, s, 's')
	case m < 10:
		if s%60 == 0 {
			return n(dst, m, 'm')
		}
		return n(n(dst, m, 'm'), s%60, 's')
	case m < 3*60:
		return n(dst, m, 'm')
	case h < 8:
		if m%60 == 0 {
			return n(dst, h, 'h')
		}
		return n(n(dst, h, 'h'), m%60, 'm')
	case h < 48:
		return n(dst, h, 'h')
	case h < 24*8:
		if h%24 == 0 {
			return n(dst, days, 'd')
		}
		return n(n(dst, days, 'd'), h%24, 'h')
	case h < 24*365*2:
		return n(dst, days, 'd')
	case h < 24*365*8:
		if dy := days % 365; dy != 0 {
			return n(n(dst, years, 'y'), dy, 'd')
		}
	}
	return n(dst, years, 'y')
}
