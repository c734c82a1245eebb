package typedjson

import (
	"fmt"
	"reflect"
	"strings"
)

// jsonField is one field of a struct as encoding/json sees it, with the
// fields of embedded structs without a name of their own taken in.
type jsonField struct {
	reflect.StructField
	name   string  // the JSON name
	opts   string  // the tag's options, after the name
	offset uintptr // from the start of the outermost struct
}

// jsonFields calls visit for each field of t, at offset base in the
// outer struct, that encoding/json encodes, named as it names it. It
// fails on what the compiled plans do not support: the string option
// and embedded pointers to structs without a name.
func jsonFields(t reflect.Type, base uintptr, visit func(jsonField) error) error {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if !validTag(name) {
			name = ""
		}
		if hasOption(opts, "string") {
			return fmt.Errorf("%v.%s: the string option is not supported", t, f.Name)
		}
		ft := f.Type
		if f.Anonymous {
			if ft.Kind() == reflect.Pointer && name == "" {
				return fmt.Errorf("%v.%s: embedded pointer not supported", t, f.Name)
			}
			if !f.IsExported() && ft.Kind() != reflect.Struct {
				continue
			}
			if name == "" && ft.Kind() == reflect.Struct {
				if err := jsonFields(ft, base+f.Offset, visit); err != nil {
					return err
				}
				continue
			}
		} else if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if err := visit(jsonField{StructField: f, name: name, opts: opts, offset: base + f.Offset}); err != nil {
			return err
		}
	}
	return nil
}
