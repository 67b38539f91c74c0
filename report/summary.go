package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// SummaryFromStruct lists the fields of a summary struct (such as
// sim.Summary, or a pointer to one) as key/value pairs in field order,
// exactly as SummaryFromJSON lists the struct's JSON encoding, without
// encoding and reading back the whole object. The key is the field's json
// name (the field's name when untagged); fields tagged "-", unexported
// fields, and omitempty or omitzero fields holding an empty value are left
// out, as encoding/json leaves them out. Each value is its own JSON
// encoding (so a statistic with a MarshalJSON method prints as it does in
// summary.json), shown as SummaryFromJSON shows it: numbers as printed,
// strings unquoted, other values compact.
//
// Embedded structs and the ",string" option are not supported (no summary
// uses them): they are an error rather than rows that would differ from
// the file.
func SummaryFromStruct(v any) ([]KV, error) {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return nil, errors.New("report: summary rows: a nil pointer")
		}
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct {
		return nil, fmt.Errorf("report: summary rows: want a struct, got %s", rv.Type())
	}
	t := rv.Type()
	var out []KV
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			return nil, fmt.Errorf("report: summary rows: embedded field %s is not supported", f.Name)
		}
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		fv := rv.Field(i)
		if omitted(fv, opts) {
			continue
		}
		if hasOption(opts, "string") {
			return nil, fmt.Errorf("report: summary rows: field %s: the \",string\" option is not supported", f.Name)
		}
		raw, err := json.Marshal(fv.Interface())
		if err != nil {
			return nil, fmt.Errorf("report: summary rows: value of %q: %w", name, err)
		}
		out = append(out, KV{Key: name, Value: jsonText(raw)})
	}
	return out, nil
}

// omitted reports whether encoding/json leaves out a field holding v under
// the tag options opts.
func omitted(v reflect.Value, opts string) bool {
	if hasOption(opts, "omitzero") {
		if v.Kind() == reflect.Pointer && v.IsNil() {
			return true
		}
		if z, ok := v.Interface().(interface{ IsZero() bool }); ok {
			if z.IsZero() {
				return true
			}
		} else if v.IsZero() {
			return true
		}
	}
	if !hasOption(opts, "omitempty") {
		return false
	}
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

// hasOption reports whether a json tag's comma-separated options hold opt.
func hasOption(opts, opt string) bool {
	for o := range strings.SplitSeq(opts, ",") {
		if o == opt {
			return true
		}
	}
	return false
}
