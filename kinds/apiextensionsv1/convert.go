package apiextensionsv1

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/schema"
	"github.com/kapi-dev/kapi/status"
)

// KindFor returns the kind a definition serves, as meta.Unstructured
// objects: each version with its schema, subresources and printer
// columns, stored in the storage version, converted between versions as
// spec.conversion says (see [Converter]), each version with its own
// selectable fields, read from objects in that version. A webhook gets
// one object per ConversionReview, as kube-apiserver sends them, for
// lists too. The errors are field errors under spec, as in a 422 answer.
func KindFor(crd *CustomResourceDefinition) (apiserver.Kind, status.FieldErrors) {
	vi := -1
	for i, v := range crd.Spec.Versions {
		if v.Storage {
			vi = i
		}
	}
	if vi < 0 {
		return apiserver.Kind{}, status.FieldErrors{status.InvalidValue(status.NewPath("spec", "versions"), nil, "must have exactly one version marked as storage version")}
	}
	n := crd.Spec.Names
	k := apiserver.Kind{
		Group: crd.Spec.Group, Kind: n.Kind, Resource: n.Plural, Singular: n.Singular,
		ShortNames: n.ShortNames, Categories: n.Categories, Namespaced: crd.Spec.Scope == NamespaceScoped,
		New:                    func() meta.Object { return &meta.Unstructured{} },
		RequireResourceVersion: true,
	}
	errs := missingSchemas(crd)
	places := schemaPlacesOf(crd)
	versions := make([]apiserver.KindVersion, len(crd.Spec.Versions))
	for i := range crd.Spec.Versions {
		kv, verrs := kindVersion(&crd.Spec.Versions[i], places, i)
		versions[i] = kv
		errs = append(errs, verrs...)
	}
	st := versions[vi]
	if len(versions) == 1 && !st.Deprecated && !st.NotServed {
		k.Version, k.Schema, k.PrinterColumns, k.Subresources = st.Name, st.Schema, st.PrinterColumns, *st.Subresources
		k.SelectableFields = selectableFields(crd.Spec.Versions[vi].SelectableFields)
		return k, errs
	}
	for i := range versions {
		fields := selectableFields(crd.Spec.Versions[i].SelectableFields)
		if fields == nil {
			fields = map[string]func(meta.Object) string{} // none, not the kind's
		}
		versions[i].SelectableFields = fields
	}
	k.Versions = versions
	w, cerr := newWebhook(crd)
	if cerr != nil {
		errs = append(errs, cerr)
	}
	if w != nil {
		k.Convert = w.convert
	}
	return k, errs
}

// kindVersion is one version, the i-th, of a definition as a version of
// its kind; places says where its schema's problems are reported.
func kindVersion(v *CustomResourceDefinitionVersion, places schemaPlaces, i int) (apiserver.KindVersion, status.FieldErrors) {
	kv := apiserver.KindVersion{Name: v.Name, Storage: v.Storage, NotServed: !v.Served, Deprecated: v.Deprecated,
		Subresources: &apiserver.Subresources{}}
	if v.DeprecationWarning != nil {
		kv.DeprecationWarning = *v.DeprecationWarning
	}
	sch, errs := compileSchema(v, places.path(i))
	if !places.reports(i) {
		errs = nil // the first version's are the same
	}
	kv.Schema = sch
	if sr := v.Subresources; sr != nil {
		kv.Subresources.Status = sr.Status != nil
		if sc := sr.Scale; sc != nil {
			kv.Subresources.Scale = &apiserver.Scale{SpecReplicasPath: sc.SpecReplicasPath, StatusReplicasPath: sc.StatusReplicasPath}
			if sc.LabelSelectorPath != nil {
				kv.Subresources.Scale.LabelSelectorPath = *sc.LabelSelectorPath
			}
		}
	}
	kv.PrinterColumns = printerColumns(v.AdditionalPrinterColumns)
	return kv, errs
}

// compileSchema checks that a version's schema is structural and
// compiles it; a version without one (see missingSchemas) has none.
func compileSchema(v *CustomResourceDefinitionVersion, p status.Path) (*schema.Schema, status.FieldErrors) {
	if !hasSchema(v) {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(v.Schema.OpenAPIV3Schema))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil || doc == nil {
		return nil, status.FieldErrors{status.InvalidValue(p, string(v.Schema.OpenAPIV3Schema), "must be a JSON object")}
	}
	// As kube-apiserver: the defaults are checked once the schema is
	// structural; defaults where none may be are refused either way. A
	// schema with a keyword kube's structural form cannot hold is not
	// checked as structural at all, and that keyword is its problem only
	// when the nodes' checks find nothing else.
	var errs status.FieldErrors
	unsupported := unsupportedKeyword(doc)
	if unsupported == "" {
		if errs = structuralErrors(doc, p); len(errs) == 0 {
			errs = defaultErrors(doc, p)
		}
	}
	errs = append(errs, schemaErrors(doc, p)...)
	if unsupported != "" && len(errs) == 0 {
		errs = status.FieldErrors{status.InvalidValue(p, "", unsupported)}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	if props, ok := doc["properties"].(map[string]any); ok && props["metadata"] != nil {
		props["metadata"] = metadataRestrictions(props["metadata"])
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, status.FieldErrors{status.InvalidValue(p, nil, err.Error())}
	}
	sch, err := schema.FromOpenAPI(b)
	if err != nil {
		return nil, status.FieldErrors{status.InvalidValue(p, nil, strings.TrimPrefix(err.Error(), "schema: "))}
	}
	return sch, nil
}

// metadataRestrictions keeps what a schema says of metadata that kapi
// enforces: the restrictions of name and generateName (anything else
// was refused by the structural check, or only documents).
func metadataRestrictions(v any) map[string]any {
	out := map[string]any{"type": "object"}
	m, _ := v.(map[string]any)
	props, _ := m["properties"].(map[string]any)
	keep := map[string]any{}
	for _, name := range []string{"name", "generateName"} {
		if p, ok := props[name]; ok {
			keep[name] = p
		}
	}
	if len(keep) > 0 {
		out["properties"] = keep
	}
	return out
}

// printerColumns turns a version's columns into the kind's; a version
// without any shows Age, as kube-apiserver does. The columns were
// checked with the definition (see columnErrors), which takes paths
// kube's JSONPath parser does not: as kube, a table shows the columns
// before the first of those; a path kapi cannot follow gives empty
// cells.
func printerColumns(in []CustomResourceColumnDefinition) []apiserver.PrinterColumn {
	if len(in) == 0 {
		return []apiserver.PrinterColumn{{Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp",
			Description: apiserver.AgeColumn().Description}}
	}
	out := make([]apiserver.PrinterColumn, 0, len(in))
	for _, c := range in {
		if !balanced(c.JSONPath) {
			break // as kube: the columns before it only
		}
		col := apiserver.PrinterColumn{Name: c.Name, Type: c.Type, Format: c.Format, Description: c.Description, Priority: c.Priority, JSONPath: c.JSONPath}
		if col.Description == "" {
			// kube describes a column its definition does not.
			col.Description = "Custom resource definition column (in JSONPath format): " + c.JSONPath
		}
		path, err := parsePath(c.JSONPath)
		switch {
		case err != nil:
			col.Cell = func(meta.Object) any { return nil }
		case !path.simple() || path[0].field != "metadata":
			col.Cell = cellFunc(path, c.Type)
		}
		out = append(out, col)
	}
	return out
}

// cellFunc computes a column's cell from an object's content.
func cellFunc(p path, typ string) func(meta.Object) any {
	return func(obj meta.Object) any {
		u, ok := obj.(*meta.Unstructured)
		if !ok {
			return nil
		}
		v, ok := p.first(u.Content)
		if !ok || v == nil {
			return nil
		}
		return typedCell(v, typ)
	}
}

func typedCell(v any, typ string) any {
	switch typ {
	case "integer":
		switch n := v.(type) {
		case int64:
			return n
		case float64:
			return int64(n)
		}
		return nil
	case "number":
		switch n := v.(type) {
		case int64:
			return float64(n)
		case float64:
			return n
		}
		return nil
	case "boolean":
		b, _ := v.(bool)
		return b
	case "date":
		s, _ := v.(string)
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return nil
		}
		return meta.NewTime(t)
	}
	switch x := v.(type) {
	case string:
		return x
	case map[string]any, []any:
		b, _ := json.Marshal(x)
		return string(b)
	}
	return fmt.Sprint(v)
}

// selectableFields turns a version's selectable fields into accessors
// of the kind's objects. The fields were checked with the definition
// (see selectableFieldErrors): each names a scalar property.
func selectableFields(in []SelectableField) map[string]func(meta.Object) string {
	if len(in) == 0 {
		return nil
	}
	out := map[string]func(meta.Object) string{}
	for _, f := range in {
		path, err := parsePath(f.JSONPath)
		if err != nil || !path.simple() {
			continue
		}
		names := make([]string, len(path))
		for j, st := range path {
			names[j] = st.field
		}
		out[strings.Join(names, ".")] = func(obj meta.Object) string {
			u, ok := obj.(*meta.Unstructured)
			if !ok {
				return ""
			}
			v, ok := path.first(u.Content)
			if !ok || v == nil {
				return ""
			}
			switch x := v.(type) {
			case string:
				return x
			case int64:
				return strconv.FormatInt(x, 10)
			}
			return fmt.Sprint(v)
		}
	}
	return out
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}
