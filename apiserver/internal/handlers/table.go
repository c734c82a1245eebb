package handlers

import (
	"net/http"
	"reflect"
	"strings"

	"github.com/kapi-dev/kapi/apiserver/internal/registry"
	"github.com/kapi-dev/kapi/apiserver/internal/tables"
	"github.com/kapi-dev/kapi/apiserver/kinds"
	"github.com/kapi-dev/kapi/apiserver/requestinfo"
	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// ReadOutput is how a get, list or watch response is rendered: the
// serializer and, when the client asked for one, a transformation.
type ReadOutput struct {
	Serializer codec.Serializer
	// As is "", Table, PartialObjectMetadata or PartialObjectMetadataList.
	As         string
	ApiVersion string // of the Table or partial metadata
	Include    string // includeObject for tables
	// noHeaders leaves a Table's column definitions out (null), as
	// kube-apiserver does in every Table event of a watch but the first.
	noHeaders bool
}

// negotiateRead picks the rendering of a read. list is true for lists,
// where partial metadata is a PartialObjectMetadataList.
func (h *Handler) negotiateRead(req *Request, list bool, watch bool) (ReadOutput, error) {
	var out ReadOutput
	kind := reflect.TypeOf(h.Resource.NewObject())
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
			out = ReadOutput{Serializer: ser}
			return true
		}
		v := mt.Param("v")
		if mt.Param("g") != tables.MetaGroup || (v != "v1" && v != "v1beta1") {
			return false
		}
		switch {
		case as == tables.AsTable:
		case as == tables.AsPartial && (!list || watch):
		case as == tables.AsPartialList && list && !watch:
		default:
			return false
		}
		if !codec.Supports(ser, renderedType(as)) {
			return false
		}
		out = ReadOutput{Serializer: ser, As: as, ApiVersion: tables.MetaGroup + "/" + v}
		return true
	}
	if _, _, err := h.Codecs.Negotiate(req.Request.Header.Get("Accept"), accept); err != nil {
		return out, status.NotAcceptable(h.mediaTypesFor(kind))
	}
	if out.As == tables.AsTable {
		out.Include = requestinfo.Query(req.Request).Get("includeObject")
		switch out.Include {
		case "":
			out.Include = tables.IncludeObjectMeta
		case tables.IncludeObjectNone, tables.IncludeObjectMeta, tables.IncludeObjectFull:
		default:
			bad := status.InvalidValue(status.NewPath("includeObject"), out.Include, "must be 'Metadata', 'Object', 'None', or empty")
			return out, status.BadRequest("Unable to convert to Table as requested: " + bad.Error())
		}
	}
	return out, nil
}

// renderedType is the Go type a transformation renders to, for checking
// that a serializer can encode it.
func renderedType(as string) reflect.Type {
	switch as {
	case tables.AsPartial:
		return reflect.TypeOf(&tables.PartialObject{})
	case tables.AsPartialList:
		return reflect.TypeOf(&tables.PartialList{})
	}
	return reflect.TypeOf(&tables.Table{})
}

// Render turns an object or list into what the client asked for.
func (o ReadOutput) Render(r *registry.Resource, v any) (any, error) {
	switch o.As {
	case tables.AsTable:
		return o.table(r, v)
	case tables.AsPartial:
		obj, ok := v.(meta.Object)
		if !ok {
			return nil, status.BadRequest("PartialObjectMetadata is served for single objects")
		}
		return o.partial(obj), nil
	case tables.AsPartialList:
		l := v.(*meta.List)
		out := &tables.PartialList{TypeMeta: meta.TypeMeta{Kind: tables.AsPartialList, APIVersion: o.ApiVersion}, ListMeta: l.ListMeta,
			Items: make([]tables.PartialObject, len(l.Items))}
		for i, obj := range l.Items {
			out.Items[i] = *o.partial(obj)
		}
		return out, nil
	}
	return v, nil
}

func (o ReadOutput) partial(obj meta.Object) *tables.PartialObject {
	return &tables.PartialObject{TypeMeta: meta.TypeMeta{Kind: tables.AsPartial, APIVersion: o.ApiVersion}, Metadata: *obj.GetObjectMeta()}
}

func (o ReadOutput) table(r *registry.Resource, v any) (*tables.Table, error) {
	t := &tables.Table{TypeMeta: meta.TypeMeta{Kind: tables.AsTable, APIVersion: o.ApiVersion}, Rows: []tables.Row{}}
	if !o.noHeaders {
		t.ColumnDefinitions = tableColumns(r)
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

// tableColumns are Name, then the kind's columns, or Name and Created At.
func tableColumns(r *registry.Resource) []tables.Column {
	var cols []tables.Column
	if !namedColumn(&r.Kind) {
		cols = append(cols, tables.Column{Name: "Name", Type: "string", Format: "name", Description: tables.NameColumnDesc})
	}
	if len(r.Kind.PrinterColumns) == 0 {
		return append(cols, tables.Column{Name: "Created At", Type: "date", Description: tables.CreatedAtColumnDesc})
	}
	for _, c := range r.Kind.PrinterColumns {
		cols = append(cols, tables.Column{Name: c.Name, Type: c.Type, Format: c.Format, Description: columnDescription(c), Priority: c.Priority})
	}
	return cols
}

// columnDescription is c's description: a column a kind does not
// describe is described by its JSONPath, as kube-apiserver describes a
// custom resource's.
func columnDescription(c kinds.PrinterColumn) string {
	if c.Description == "" && c.JSONPath != "" {
		return "Custom resource definition column (in JSONPath format): " + c.JSONPath
	}
	return c.Description
}

func (o ReadOutput) row(r *registry.Resource, obj meta.Object) (tables.Row, error) {
	var specs [maxStackColumns]tables.Spec
	cells, err := printer(&r.Kind, specs[:0]).Cells(obj)
	row := tables.Row{Cells: cells}
	if err != nil {
		return row, err
	}
	switch o.Include {
	case tables.IncludeObjectMeta:
		row.Object = o.partial(obj)
	case tables.IncludeObjectFull:
		row.Object = obj
	}
	return row, nil
}

// printer is how rows print the kind's objects, its columns appended to
// specs: callers pass an array of maxStackColumns on their stack, which
// holds the columns of every kind but the widest without allocating.
func printer(k *kinds.Kind, specs []tables.Spec) tables.Printer {
	for _, c := range k.PrinterColumns {
		specs = append(specs, tables.Spec{Type: c.Type, JSONPath: c.JSONPath, Cell: c.Cell})
	}
	return tables.Printer{Named: namedColumn(k), Columns: specs}
}

// maxStackColumns is how many columns' specs a row keeps on its stack.
const maxStackColumns = 16

// namedColumn reports whether one of the kind's columns is the name.
func namedColumn(k *kinds.Kind) bool {
	for _, c := range k.PrinterColumns {
		if c.Format == "name" {
			return true
		}
	}
	return false
}

// writeRead writes the result of a get or list in the negotiated
// rendering.
func (h *Handler) writeRead(req *Request, out ReadOutput, v any) {
	rendered, err := out.Render(h.Resource, v)
	if err != nil {
		h.fail(req, err)
		return
	}
	h.writeEncoded(req, http.StatusOK, out.Serializer, out.contentType(), rendered)
}

// contentType is the Content-Type of a response in this rendering: the
// serializer's media type alone, as kube-apiserver names a Table or
// partial metadata response too.
func (o ReadOutput) contentType() string { return o.Serializer.MediaType() }

// key names the rendering: the media type with the transformation and
// includeObject, which tell apart the encodings of one object.
func (o ReadOutput) key() string {
	if o.As == "" {
		return o.Serializer.MediaType()
	}
	g, v, _ := strings.Cut(o.ApiVersion, "/")
	return o.Serializer.MediaType() + ";as=" + o.As + ";v=" + v + ";g=" + g + ";includeObject=" + o.Include
}
