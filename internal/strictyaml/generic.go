package strictyaml

import (
	"errors"
	"reflect"

	"go.yaml.in/yaml/v3"
)

// decodeInterface decodes into an interface{} field the generic Go values
// encoding/json would produce, except that integers stay integers:
// map[string]any, []any, string, int64, float64, bool and nil.
func (d *Decoder) decodeInterface(n *yaml.Node, path string, v reflect.Value) {
	if v.NumMethod() != 0 {
		d.Errorf(n, path, "internal error: cannot decode into non-empty interface type %s", v.Type())
		return
	}
	g, ok := d.generic(n, path)
	if !ok {
		return
	}
	if g == nil {
		v.SetZero()
		return
	}
	v.Set(reflect.ValueOf(g))
}

// generic converts the resolved, non-alias node n. Children go through
// decode so that positions, aliases and limits are handled as everywhere
// else.
func (d *Decoder) generic(n *yaml.Node, path string) (any, bool) {
	switch n.Kind {
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for _, p := range d.mappingPairs(n, path) {
			key, ok := d.mapKey(p.key, path)
			if !ok {
				continue
			}
			if _, dup := m[key]; dup {
				d.Errorf(p.key, path, "duplicate key %s", quoteShort(key))
				continue
			}
			var item any
			d.decodeEntry(p, Join(path, key), reflect.ValueOf(&item).Elem())
			m[key] = item
		}
		return m, true
	case yaml.SequenceNode:
		s := make([]any, len(n.Content))
		for i, item := range n.Content {
			d.decode(item, Index(path, i), reflect.ValueOf(&s[i]).Elem())
		}
		return s, true
	case yaml.ScalarNode:
		return d.genericScalar(n, path)
	}
	d.typeError(n, path, "a value")
	return nil, false
}

func (d *Decoder) genericScalar(n *yaml.Node, path string) (any, bool) {
	switch tag := n.ShortTag(); tag {
	case nullTag:
		return nil, true
	case strTag, timestampTag, binaryTag, mergeTag:
		return n.Value, true
	case boolTag:
		b, ok := parseBool(n.Value)
		if !ok {
			d.Errorf(n, path, "invalid boolean %s", quoteShort(n.Value))
			return nil, false
		}
		return b, true
	case intTag:
		i, err := parseInt(n.Value)
		if errors.Is(err, errOutOfRange) {
			d.Errorf(n, path, "value %s out of range for int64", showValue(n.Value))
			return nil, false
		}
		if err != nil {
			d.Errorf(n, path, "invalid integer %s", quoteShort(n.Value))
			return nil, false
		}
		return i, true
	case floatTag:
		f, err := parseFloat(n.Value)
		if err != nil {
			d.numberError(n, path, reflect.ValueOf(f), err)
			return nil, false
		}
		return f, true
	default:
		d.Errorf(n, path, "unsupported tag %s", showValue(tag))
		return nil, false
	}
}
