package strictyaml

import (
	"encoding"
	"encoding/base64"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

var (
	nodeType     = reflect.TypeFor[yaml.Node]()
	nodePtrType  = reflect.TypeFor[*yaml.Node]()
	durationType = reflect.TypeFor[time.Duration]()
)

// decode records where the value for path is and decodes n into v.
func (d *Decoder) decode(n *yaml.Node, path string, v reflect.Value) {
	if d.aborted {
		return
	}
	if n == nil {
		setNull(v)
		return
	}
	d.record(path, n)
	d.value(n, path, v)
}

// value decodes n into the settable value v. It is the single dispatch point:
// aliases, nulls, pointers, hooks, then the kind of v.
func (d *Decoder) value(n *yaml.Node, path string, v reflect.Value) {
	if !d.enter(n, path) {
		return
	}
	defer d.leave()

	switch n.Kind {
	case yaml.AliasNode:
		d.expandAlias(n, path, func(target *yaml.Node) { d.value(target, path, v) })
		return
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			setNull(v)
			return
		}
		d.value(n.Content[0], path, v)
		return
	}
	if n.Anchor != "" {
		defer d.markAnchor(n)()
	}
	if !v.CanSet() {
		d.Errorf(n, path, "internal error: cannot set value of type %s", v.Type())
		return
	}

	switch v.Type() {
	case nodeType:
		v.Set(reflect.ValueOf(n).Elem())
		return
	case nodePtrType:
		v.Set(reflect.ValueOf(n))
		return
	}
	if v.Kind() == reflect.Pointer {
		if isNull(n) {
			v.SetZero()
			return
		}
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		d.value(n, path, v.Elem())
		return
	}
	if isNull(n) {
		setNull(v)
		return
	}
	if d.hooks(n, path, v) {
		return
	}

	switch v.Kind() {
	case reflect.Interface:
		d.decodeInterface(n, path, v)
	case reflect.Struct:
		d.decodeStruct(n, path, v)
	case reflect.Map:
		d.decodeMap(n, path, v)
	case reflect.Slice:
		d.decodeSlice(n, path, v)
	case reflect.Array:
		d.decodeArray(n, path, v)
	case reflect.String:
		d.decodeString(n, path, v)
	case reflect.Bool:
		d.decodeBool(n, path, v)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if v.Type() == durationType {
			d.decodeDuration(n, path, v)
		} else {
			d.decodeInt(n, path, v)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		d.decodeUint(n, path, v)
	case reflect.Float32, reflect.Float64:
		d.decodeFloat(n, path, v)
	default:
		d.Errorf(n, path, "internal error: cannot decode into Go type %s", v.Type())
	}
}

// setNull applies a YAML null to v the way encoding/json applies a JSON
// null: pointers, interfaces, maps and slices become nil, anything else
// keeps its current (usually zero or default) value.
func setNull(v reflect.Value) {
	if !v.CanSet() {
		return
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Map, reflect.Slice:
		v.SetZero()
	}
}

// hooks lets the type decode itself; it reports whether it did.
func (d *Decoder) hooks(n *yaml.Node, path string, v reflect.Value) bool {
	if !v.CanAddr() || !v.Addr().CanInterface() {
		return false
	}
	before := len(d.Errors)
	switch u := v.Addr().Interface().(type) {
	case NodeUnmarshaler:
		u.UnmarshalYAMLNode(d, n, path)
	case json.Unmarshaler:
		d.unmarshalJSON(n, path, u)
	case encoding.TextUnmarshaler:
		d.unmarshalText(n, path, u)
	default:
		return false
	}
	if d.Check != nil && len(d.Errors) == before {
		if msg := d.Check(v.Addr().Interface(), n.Value); msg != "" {
			d.Errorf(n, path, "%s", msg)
		}
	}
	return true
}

// typeError records "expected <want>, got <what n is>" with a hint when
// quoting or unquoting the value would fix it.
func (d *Decoder) typeError(n *yaml.Node, path, want string) {
	msg := "expected " + want + ", got " + describe(n)
	if n.Kind == yaml.ScalarNode {
		tag := n.ShortTag()
		switch {
		case want == "a string" && quotable(tag):
			msg += " (quote it if you mean the string " + quoteShort(n.Value) + ")"
		case tag == strTag && isQuoted(n) && resolvesTo(n.Value, want):
			msg += " (remove the quotes)"
		}
	}
	d.Errorf(n, path, "%s", msg)
}

// quotable reports whether a plain scalar with this resolved tag would have
// been a string had it been quoted.
func quotable(tag string) bool {
	switch tag {
	case intTag, floatTag, boolTag, timestampTag:
		return true
	}
	return false
}

// resolvesTo reports whether s, written unquoted, would be a scalar of the
// wanted kind.
func resolvesTo(s, want string) bool {
	probe := yaml.Node{Kind: yaml.ScalarNode, Value: s}
	tag := probe.ShortTag()
	switch want {
	case "an integer":
		return tag == intTag
	case "a number":
		return tag == intTag || tag == floatTag
	case "a boolean":
		return tag == boolTag
	}
	return false
}

// scalar reports whether n is a scalar node and records a type error if not.
func (d *Decoder) scalar(n *yaml.Node, path, want string) bool {
	if n.Kind != yaml.ScalarNode {
		d.typeError(n, path, want)
		return false
	}
	return true
}

func (d *Decoder) decodeString(n *yaml.Node, path string, v reflect.Value) {
	// A plain "<<" resolves to !!merge, but outside a key it is just text.
	if tag := n.ShortTag(); n.Kind != yaml.ScalarNode || tag != strTag && tag != mergeTag {
		d.typeError(n, path, "a string")
		return
	}
	v.SetString(n.Value)
}

func (d *Decoder) decodeBool(n *yaml.Node, path string, v reflect.Value) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != boolTag {
		d.typeError(n, path, "a boolean")
		return
	}
	b, ok := parseBool(n.Value)
	if !ok {
		d.Errorf(n, path, "invalid boolean %s", quoteShort(n.Value))
		return
	}
	v.SetBool(b)
}

// intTagged reports whether n is an integer, recording a type error if not.
// Implicitly typed digit strings too long for 64 bits resolve to !!float in
// yaml.v3; those are reported as out of range rather than as floats.
func (d *Decoder) intTagged(n *yaml.Node, path string, v reflect.Value) bool {
	if !d.scalar(n, path, "an integer") {
		return false
	}
	switch tag := n.ShortTag(); {
	case tag == intTag:
		return true
	case tag == floatTag && n.Style&yaml.TaggedStyle == 0 && looksLikeInteger(n.Value):
		d.Errorf(n, path, "value %s out of range for %s", showValue(n.Value), v.Kind())
	default:
		d.typeError(n, path, "an integer")
	}
	return false
}

func (d *Decoder) decodeInt(n *yaml.Node, path string, v reflect.Value) {
	if !d.intTagged(n, path, v) {
		return
	}
	i, err := parseInt(n.Value)
	if err == nil && v.OverflowInt(i) {
		err = errOutOfRange
	}
	if err != nil {
		d.numberError(n, path, v, err)
		return
	}
	v.SetInt(i)
}

func (d *Decoder) decodeUint(n *yaml.Node, path string, v reflect.Value) {
	if !d.intTagged(n, path, v) {
		return
	}
	u, err := parseUint(n.Value)
	if err == nil && v.OverflowUint(u) {
		err = errOutOfRange
	}
	if err != nil {
		d.numberError(n, path, v, err)
		return
	}
	v.SetUint(u)
}

func (d *Decoder) decodeFloat(n *yaml.Node, path string, v reflect.Value) {
	if !d.scalar(n, path, "a number") {
		return
	}
	var f float64
	var err error
	switch n.ShortTag() {
	case intTag:
		if i, ierr := parseInt(n.Value); ierr == nil {
			f = float64(i)
		} else if b, ok := parseBigInt(n.Value); ok {
			f, _ = b.Float64()
		} else {
			err = ierr
		}
	case floatTag:
		f, err = parseFloat(n.Value)
	default:
		d.typeError(n, path, "a number")
		return
	}
	if err == nil && v.OverflowFloat(f) {
		err = errOutOfRange
	}
	if err != nil {
		d.numberError(n, path, v, err)
		return
	}
	v.SetFloat(f)
}

func (d *Decoder) numberError(n *yaml.Node, path string, v reflect.Value, err error) {
	if errors.Is(err, errOutOfRange) {
		d.Errorf(n, path, "value %s out of range for %s", showValue(n.Value), v.Kind())
		return
	}
	d.Errorf(n, path, "invalid %s %s", strings.TrimPrefix(n.ShortTag(), "!!"), quoteShort(n.Value))
}

// decodeDuration accepts Go duration strings ("90s", "1h30m") for
// time.Duration fields: a bare integer would silently mean nanoseconds.
func (d *Decoder) decodeDuration(n *yaml.Node, path string, v reflect.Value) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != strTag {
		d.typeError(n, path, `a duration such as "90s"`)
		return
	}
	dur, err := time.ParseDuration(n.Value)
	if err != nil {
		d.Errorf(n, path, "invalid duration %s: use a number with a unit such as \"90s\" or \"1h30m\"", quoteShort(n.Value))
		return
	}
	v.SetInt(int64(dur))
	if d.Check != nil {
		if msg := d.Check(dur, n.Value); msg != "" {
			d.Errorf(n, path, "%s", msg)
		}
	}
}

func (d *Decoder) decodeSlice(n *yaml.Node, path string, v reflect.Value) {
	if v.Type().Elem().Kind() == reflect.Uint8 && n.Kind == yaml.ScalarNode {
		d.decodeBytes(n, path, v)
		return
	}
	if n.Kind != yaml.SequenceNode {
		d.typeError(n, path, "a sequence")
		return
	}
	s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	for i, item := range n.Content {
		d.decode(item, Index(path, i), s.Index(i))
	}
	v.Set(s)
}

// decodeBytes decodes base64 text (a !!binary or plain string scalar) into a
// byte slice, as encoding/json does for []byte.
func (d *Decoder) decodeBytes(n *yaml.Node, path string, v reflect.Value) {
	if tag := n.ShortTag(); tag != strTag && tag != binaryTag {
		d.typeError(n, path, "base64-encoded data")
		return
	}
	text := strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, n.Value)
	b, err := base64.StdEncoding.DecodeString(text)
	if err != nil {
		d.Errorf(n, path, "invalid base64 data: %v", err)
		return
	}
	bv := reflect.New(v.Type()).Elem()
	bv.SetBytes(b)
	v.Set(bv)
}

func (d *Decoder) decodeArray(n *yaml.Node, path string, v reflect.Value) {
	if n.Kind != yaml.SequenceNode {
		d.typeError(n, path, "a sequence")
		return
	}
	if len(n.Content) != v.Len() {
		d.Errorf(n, path, "expected a sequence of %d elements, got %d", v.Len(), len(n.Content))
		return
	}
	for i, item := range n.Content {
		d.decode(item, Index(path, i), v.Index(i))
	}
}

// mapKey returns the string form of a mapping key, recording an error for
// keys that cannot name a field or map entry.
func (d *Decoder) mapKey(k *yaml.Node, path string) (string, bool) {
	if k.Kind == yaml.AliasNode && k.Alias != nil && k.Alias.Kind == yaml.ScalarNode {
		k = k.Alias
	}
	if k.Kind != yaml.ScalarNode {
		d.Errorf(k, path, "mapping keys must be scalars, got %s", describe(k))
		return "", false
	}
	switch tag := k.ShortTag(); tag {
	case strTag, intTag, floatTag, boolTag, timestampTag:
		return k.Value, true
	case nullTag:
		d.Errorf(k, path, "mapping key must not be null")
	default:
		d.Errorf(k, path, "mapping keys must be strings, got %s", describe(k))
	}
	return "", false
}

func (d *Decoder) decodeMap(n *yaml.Node, path string, v reflect.Value) {
	t := v.Type()
	if t.Key().Kind() != reflect.String {
		d.Errorf(n, path, "internal error: cannot decode into map with key type %s", t.Key())
		return
	}
	if n.Kind != yaml.MappingNode {
		d.typeError(n, path, "a mapping")
		return
	}
	if v.IsNil() {
		v.Set(reflect.MakeMapWithSize(t, len(n.Content)/2))
	}
	seen := make(map[string]bool, len(n.Content)/2)
	for _, p := range d.mappingPairs(n, path) {
		key, ok := d.mapKey(p.key, path)
		if !ok {
			continue
		}
		if seen[key] {
			d.Errorf(p.key, path, "duplicate key %s", quoteShort(key))
			continue
		}
		seen[key] = true
		elem := reflect.New(t.Elem()).Elem()
		d.decodeEntry(p, Join(path, key), elem)
		v.SetMapIndex(reflect.ValueOf(key).Convert(t.Key()), elem)
	}
}

func (d *Decoder) decodeStruct(n *yaml.Node, path string, v reflect.Value) {
	if n.Kind != yaml.MappingNode {
		d.typeError(n, path, "a mapping")
		return
	}
	info := d.structInfo(v.Type())
	seen := make(map[string]bool, len(n.Content)/2)
	for _, p := range d.mappingPairs(n, path) {
		name, ok := d.mapKey(p.key, path)
		if !ok {
			continue
		}
		f := info.fields[name]
		if f == nil {
			msg := "unknown field " + quoteShort(name)
			if s := Suggest(name, info.names); s != "" {
				msg += " (did you mean " + quoteShort(s) + "?)"
			}
			d.Errorf(p.key, path, "%s", msg)
			continue
		}
		if seen[name] {
			d.Errorf(p.key, path, "duplicate field %s", quoteShort(name))
			continue
		}
		seen[name] = true
		fv, ok := fieldByIndex(v, f.index)
		if !ok {
			d.Errorf(p.key, path, "internal error: cannot set field %s of %s", name, v.Type())
			continue
		}
		d.decodeEntry(p, Join(path, name), fv)
	}
}

// decodeEntry decodes the value of a mapping entry. Entries that came from a
// merge key count as alias expansion.
func (d *Decoder) decodeEntry(p pair, path string, v reflect.Value) {
	if p.merged {
		d.aliasDepth++
		defer func() { d.aliasDepth-- }()
	}
	d.decode(p.value, path, v)
}

// fieldByIndex is reflect.Value.FieldByIndex that allocates nil embedded
// pointers on the way.
func fieldByIndex(v reflect.Value, index []int) (reflect.Value, bool) {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				if !v.CanSet() {
					return reflect.Value{}, false
				}
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, v.CanSet()
}
