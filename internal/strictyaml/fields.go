package strictyaml

import (
	"reflect"
	"slices"
	"strings"
)

// field is one decodable struct field, possibly promoted from an embedded
// struct (index has one entry per level, as for reflect.Value.FieldByIndex).
type field struct {
	name   string
	index  []int
	tagged bool // the name came from a json tag
}

// structInfo is the field table of a struct type as encoding/json sees it.
type structInfo struct {
	fields map[string]*field
	names  []string // sorted, for suggestions
}

// structInfo returns the cached field table for t.
func (d *Decoder) structInfo(t reflect.Type) *structInfo {
	if info, ok := d.structs[t]; ok {
		return info
	}
	if d.structs == nil {
		d.structs = make(map[reflect.Type]*structInfo)
	}
	info := buildStructInfo(t)
	d.structs[t] = info
	return info
}

// buildStructInfo lists the fields of t by their json names, following
// encoding/json's rules so that Kubernetes types decode as they would from
// JSON: the name is the json tag's name part, else the Go name; "-" and
// unexported fields are skipped; embedded structs without a tag name
// (`json:",inline"` in Kubernetes, or no tag) are flattened. Names are
// resolved breadth-first: a shallower field hides deeper ones, and at equal
// depth a single tagged field wins while any other tie hides the name.
func buildStructInfo(t reflect.Type) *structInfo {
	info := &structInfo{fields: make(map[string]*field)}
	hidden := make(map[string]bool)
	visited := make(map[reflect.Type]bool)

	type embedded struct {
		t     reflect.Type
		index []int
	}
	level := []embedded{{t: t}}
	for len(level) > 0 {
		var next []embedded
		byName := make(map[string][]*field)
		var order []string
		for _, e := range level {
			if visited[e.t] {
				continue
			}
			visited[e.t] = true
			for i := 0; i < e.t.NumField(); i++ {
				sf := e.t.Field(i)
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, _, _ := strings.Cut(tag, ",")
				index := append(slices.Clip(e.index), i)
				if sf.Anonymous {
					ft := sf.Type
					if ft.Kind() == reflect.Pointer {
						ft = ft.Elem()
					}
					if name == "" && ft.Kind() == reflect.Struct {
						// Fields behind an unexported embedded pointer
						// cannot be allocated through reflection.
						if !sf.IsExported() && sf.Type.Kind() == reflect.Pointer {
							continue
						}
						next = append(next, embedded{t: ft, index: index})
						continue
					}
					if !sf.IsExported() {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				f := &field{name: name, index: index, tagged: name != ""}
				if f.name == "" {
					f.name = sf.Name
				}
				if _, ok := byName[f.name]; !ok {
					order = append(order, f.name)
				}
				byName[f.name] = append(byName[f.name], f)
			}
		}
		for _, name := range order {
			if info.fields[name] != nil || hidden[name] {
				continue
			}
			if f := dominant(byName[name]); f != nil {
				info.fields[name] = f
			} else {
				hidden[name] = true
			}
		}
		level = next
	}

	info.names = make([]string, 0, len(info.fields))
	for name := range info.fields {
		info.names = append(info.names, name)
	}
	slices.Sort(info.names)
	return info
}

// dominant picks the field that owns a name among same-depth candidates, or
// nil when the name is ambiguous.
func dominant(fs []*field) *field {
	if len(fs) == 1 {
		return fs[0]
	}
	var winner *field
	for _, f := range fs {
		if f.tagged {
			if winner != nil {
				return nil
			}
			winner = f
		}
	}
	return winner
}
