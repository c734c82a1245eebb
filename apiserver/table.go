package apiserver

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/kapi-dev/kapi/apiserver/requestinfo"
	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// PrinterColumn is a column of the Table kubectl prints for a kind.
type PrinterColumn struct {
	// Name is the column header.
	Name string
	// Type is the OpenAPI type of the cells: integer, number, string,
	// boolean or date (an RFC 3339 time kubectl shows as an age).
	Type string
	// Format is an OpenAPI format hint. A column of format "name" takes
	// the place of the Name column the Table otherwise starts with, as
	// in kube's Table of Events, whose names come last.
	Format string
	// Description says what the column shows; default, for a JSONPath
	// column: kube-apiserver's description of a custom resource's column,
	// which names the path.
	Description string
	// Priority 0 columns are always shown; higher ones with -o wide.
	Priority int32
	// JSONPath selects the cell from the object: a dotted path such as
	// .spec.replicas.
	JSONPath string
	// Cell, when set, computes the cell from the object instead of
	// JSONPath, as kube-apiserver's printers do for built-in kinds (a
	// ConfigMap's key count, an Event's involved object). It returns a
	// value of the column's Type (string, int64, float64 or bool), a
	// meta.Time or meta.MicroTime (printed as an age), or nil for an
	// empty cell.
	Cell func(obj meta.Object) any
}

// AgeColumn is the Age column kube-apiserver's printers give the Tables
// of built-in kinds: a string cell, the time since the object's creation
// as kubectl shows ages ("5s", "3d4h"), or <unknown> without one. (A
// custom resource's Age column is a date instead: its cell is the same
// age, its type "date".)
func AgeColumn() PrinterColumn {
	return PrinterColumn{Name: "Age", Type: "string", Description: createdAtColumnDesc,
		Cell: func(obj meta.Object) any { return obj.GetObjectMeta().CreationTimestamp }}
}

// Transformations a client can ask for in Accept, as kube-apiserver names
// them.
const (
	asTable             = "Table"
	asPartial           = "PartialObjectMetadata"
	asPartialList       = "PartialObjectMetadataList"
	metaGroup           = "meta.k8s.io"
	partialAPIVersion   = "meta.k8s.io/v1"
	includeObjectNone   = "None"
	includeObjectMeta   = "Metadata"
	includeObjectFull   = "Object"
	nameColumnDesc      = "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"
	createdAtColumnDesc = "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
	transformNone       = ""
)

// readOutput is how a get, list or watch response is rendered: the
// serializer and, when the client asked for one, a transformation.
type readOutput struct {
	ser codec.Serializer
	// as is "", Table, PartialObjectMetadata or PartialObjectMetadataList.
	as         string
	apiVersion string // of the Table or partial metadata
	include    string // includeObject for tables
	// noHeaders leaves a Table's column definitions out (null), as
	// kube-apiserver does in every Table event of a watch but the first.
	noHeaders bool
}

// negotiateRead picks the rendering of a read. list is true for lists,
// where partial metadata is a PartialObjectMetadataList.
func (h *handler) negotiateRead(req *request, list bool, watch bool) (readOutput, error) {
	var out readOutput
	kind := reflect.TypeOf(h.r.newObject())
	accept := func(mt codec.MediaType, ser codec.Serializer) bool {
		if watch {
			if _, ok := ser.(codec.WatchEncoder); !ok {
				return false
			}
		}
		as := mt.Param("as")
		if as == "" {
			if (mt.Param("stream") != "" && !watch) || !codec.Supports(ser, kind) {
				return false
			}
			out = readOutput{ser: ser}
			return true
		}
		v := mt.Param("v")
		if mt.Param("g") != metaGroup || (v != "v1" && v != "v1beta1") {
			return false
		}
		switch {
		case as == asTable:
		case as == asPartial && (!list || watch):
		case as == asPartialList && list && !watch:
		default:
			return false
		}
		if !codec.Supports(ser, renderedType(as)) {
			return false
		}
		out = readOutput{ser: ser, as: as, apiVersion: metaGroup + "/" + v}
		return true
	}
	if _, _, err := h.codecs.Negotiate(req.r.Header.Get("Accept"), accept); err != nil {
		return out, status.NotAcceptable(h.mediaTypesFor(kind))
	}
	if out.as == asTable {
		out.include = requestinfo.Query(req.r).Get("includeObject")
		switch out.include {
		case "":
			out.include = includeObjectMeta
		case includeObjectNone, includeObjectMeta, includeObjectFull:
		default:
			bad := status.InvalidValue(status.NewPath("includeObject"), out.include, "must be 'Metadata', 'Object', 'None', or empty")
			return out, status.BadRequest("Unable to convert to Table as requested: " + bad.Error())
		}
	}
	return out, nil
}

// renderedType is the Go type a transformation renders to, for checking
// that a serializer can encode it.
func renderedType(as string) reflect.Type {
	switch as {
	case asPartial:
		return reflect.TypeOf(&partialObject{})
	case asPartialList:
		return reflect.TypeOf(&partialList{})
	}
	return reflect.TypeOf(&table{})
}

// render turns an object or list into what the client asked for.
func (o readOutput) render(r *resource, v any) (any, error) {
	switch o.as {
	case asTable:
		return o.table(r, v)
	case asPartial:
		obj, ok := v.(meta.Object)
		if !ok {
			return nil, status.BadRequest("PartialObjectMetadata is served for single objects")
		}
		return o.partial(obj), nil
	case asPartialList:
		l := v.(*meta.List)
		out := &partialList{TypeMeta: meta.TypeMeta{Kind: asPartialList, APIVersion: o.apiVersion}, ListMeta: l.ListMeta,
			Items: make([]partialObject, len(l.Items))}
		for i, obj := range l.Items {
			out.Items[i] = *o.partial(obj)
		}
		return out, nil
	}
	return v, nil
}

// partialObject and partialList are meta.k8s.io's PartialObjectMetadata
// and PartialObjectMetadataList, with their meta/v1 protobuf numbers.
type partialObject struct {
	meta.TypeMeta `json:",inline"`
	Metadata      meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
}

type partialList struct {
	meta.TypeMeta `json:",inline"`
	ListMeta      meta.ListMeta   `json:"metadata" protobuf:"bytes,1,opt,name=metadata"`
	Items         []partialObject `json:"items" protobuf:"bytes,2,rep,name=items"`
}

func (o readOutput) partial(obj meta.Object) *partialObject {
	return &partialObject{TypeMeta: meta.TypeMeta{Kind: asPartial, APIVersion: o.apiVersion}, Metadata: *obj.GetObjectMeta()}
}

// Table is meta.k8s.io's Table as kube-apiserver sends it.
type table struct {
	meta.TypeMeta     `json:",inline"`
	ListMeta          meta.ListMeta `json:"metadata"`
	ColumnDefinitions []tableColumn `json:"columnDefinitions"`
	Rows              []tableRow    `json:"rows"`
}

type tableColumn struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Format      string `json:"format"`
	Description string `json:"description"`
	Priority    int32  `json:"priority"`
}

type tableRow struct {
	Cells  []any `json:"cells"`
	Object any   `json:"object"` // null for includeObject=None, as kube-apiserver sends it
}

func (o readOutput) table(r *resource, v any) (*table, error) {
	t := &table{TypeMeta: meta.TypeMeta{Kind: asTable, APIVersion: o.apiVersion}, Rows: []tableRow{}}
	if !o.noHeaders {
		t.ColumnDefinitions = r.columns()
	}
	var objs []meta.Object
	switch x := v.(type) {
	case *meta.List:
		t.ListMeta = x.ListMeta
		objs = x.Items
	case meta.Object:
		t.ListMeta.ResourceVersion = x.GetObjectMeta().ResourceVersion
		objs = []meta.Object{x}
	}
	for _, obj := range objs {
		row, err := o.row(r, obj)
		if err != nil {
			return nil, err
		}
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}

// columns are Name, then the kind's columns, or Name and Created At.
func (r *resource) columns() []tableColumn {
	var cols []tableColumn
	if !r.kind.namedColumn() {
		cols = append(cols, tableColumn{Name: "Name", Type: "string", Format: "name", Description: nameColumnDesc})
	}
	if len(r.kind.PrinterColumns) == 0 {
		return append(cols, tableColumn{Name: "Created At", Type: "date", Description: createdAtColumnDesc})
	}
	for _, c := range r.kind.PrinterColumns {
		cols = append(cols, tableColumn{Name: c.Name, Type: c.Type, Format: c.Format, Description: c.describe(), Priority: c.Priority})
	}
	return cols
}

// describe is the column's description: a column a kind does not
// describe is described by its JSONPath, as kube-apiserver describes a
// custom resource's.
func (c PrinterColumn) describe() string {
	if c.Description == "" && c.JSONPath != "" {
		return "Custom resource definition column (in JSONPath format): " + c.JSONPath
	}
	return c.Description
}

func (o readOutput) row(r *resource, obj meta.Object) (tableRow, error) {
	m := obj.GetObjectMeta()
	var row tableRow
	if !r.kind.namedColumn() {
		row.Cells = append(row.Cells, m.Name)
	}
	if len(r.kind.PrinterColumns) == 0 {
		row.Cells = append(row.Cells, m.CreationTimestamp)
	} else {
		var doc map[string]any
		for _, c := range r.kind.PrinterColumns {
			if c.Cell != nil {
				row.Cells = append(row.Cells, computedCell(c.Cell(obj)))
				continue
			}
			if doc == nil {
				var err error
				if doc, err = toMap(obj); err != nil {
					return row, status.InternalError(err)
				}
			}
			row.Cells = append(row.Cells, cell(lookupPath(doc, c.JSONPath), c.Type))
		}
	}
	switch o.include {
	case includeObjectMeta:
		row.Object = o.partial(obj)
	case includeObjectFull:
		row.Object = obj
	}
	return row, nil
}

func toMap(obj any) (map[string]any, error) {
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	return m, json.Unmarshal(b, &m)
}

// lookupPath follows a dotted path (.spec.replicas) through decoded JSON.
func lookupPath(doc map[string]any, path string) any {
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

// cell renders a value for a column type as kube-apiserver does for
// custom resources: strings as text, numbers as numbers, dates as the age
// kubectl shows, missing values as null.
func cell(v any, typ string) any {
	val, t, isDate := cellOf(v, typ)
	if isDate {
		return humanDuration(time.Since(t))
	}
	return val
}

// cellOf is cell without the clock: for a date column it returns the time
// to show as an age, with isDate true, so that the rest of a row can be
// computed once.
func cellOf(v any, typ string) (val any, t time.Time, isDate bool) {
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

// namedColumn reports whether one of the kind's columns is the name.
func (k *Kind) namedColumn() bool {
	for _, c := range k.PrinterColumns {
		if c.Format == "name" {
			return true
		}
	}
	return false
}

// computedCell renders a PrinterColumn.Cell value: times as ages, zero
// times as <unknown>, everything else as it is.
func computedCell(v any) any {
	switch t := v.(type) {
	case meta.Time:
		if t.IsZero() {
			return "<unknown>"
		}
		return humanDuration(time.Since(t.Time))
	case meta.MicroTime:
		if t.IsZero() {
			return "<unknown>"
		}
		return humanDuration(time.Since(t.Time))
	}
	return v
}

// humanDuration renders an age the way kubectl's AGE column reads: two
// significant units at most, coarser as the age grows.
func humanDuration(d time.Duration) string { return string(appendAge(nil, d)) }

// appendAge appends humanDuration(d).
func appendAge(dst []byte, d time.Duration) []byte {
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

// writeRead writes the result of a get or list in the negotiated
// rendering.
func (h *handler) writeRead(req *request, out readOutput, v any) {
	rendered, err := out.render(h.r, v)
	if err != nil {
		h.fail(req, err)
		return
	}
	h.writeEncoded(req, http.StatusOK, out.ser, out.contentType(), rendered)
}

// contentType is the Content-Type of a response in this rendering: the
// serializer's media type alone, as kube-apiserver names a Table or
// partial metadata response too.
func (o readOutput) contentType() string { return o.ser.MediaType() }

// key names the rendering: the media type with the transformation and
// includeObject, which tell apart the encodings of one object.
func (o readOutput) key() string {
	if o.as == "" {
		return o.ser.MediaType()
	}
	g, v, _ := strings.Cut(o.apiVersion, "/")
	return o.ser.MediaType() + ";as=" + o.as + ";v=" + v + ";g=" + g + ";includeObject=" + o.include
}
