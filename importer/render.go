package importer

import (
	"encoding/json"
	"reflect"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/api/resource"
)

// The scenario is built as a yaml.Node tree so that keys keep a readable order and values
// carry the comments that say where they came from.

// entry is one key of a mapping being built, with an optional comment above it (head) and
// one after its value (line).
type entry struct {
	key        string
	value      *yaml.Node
	head, line string
}

func mapping(entries ...entry) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for _, e := range entries {
		if e.value == nil {
			continue
		}
		k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: e.key, HeadComment: comment(e.head)}
		if e.line != "" {
			e.value.LineComment = comment(e.line)
		}
		m.Content = append(m.Content, k, e.value)
	}
	return m
}

func sequence(items ...*yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: items}
}

func str(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

func boolean(b bool) *yaml.Node {
	v := "false"
	if b {
		v = "true"
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: v}
}

func integer(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: s} }

// comment prefixes each line of text with "# " (yaml.v3 writes comments as given).
func comment(text string) string {
	if text == "" {
		return ""
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight("# "+l, " ")
	}
	return strings.Join(lines, "\n")
}

// fromJSON renders a Kubernetes object as YAML nodes, as its JSON form would read: field
// order as the type declares it, maps sorted by key. Null values (unset pointers and
// times) are left out; an empty object is kept, as it may mean something (emptyDir: {}).
func fromJSON(v any) (*yaml.Node, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	n := doc.Content[0]
	plain(n)
	return n, nil
}

// plain drops the JSON quoting and flow style a decoded JSON text has, and null values,
// so that the encoder writes block YAML and quotes only what needs it.
func plain(n *yaml.Node) {
	n.Style = 0
	if n.Kind == yaml.MappingNode {
		kept := n.Content[:0]
		for i := 0; i+1 < len(n.Content); i += 2 {
			if v := n.Content[i+1]; v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
				continue
			}
			kept = append(kept, n.Content[i], n.Content[i+1])
		}
		n.Content = kept
	}
	for _, c := range n.Content {
		plain(c)
	}
}

// copyNode is a deep copy of n in plain style, comments dropped.
func copyNode(n *yaml.Node) *yaml.Node {
	c := *n
	c.HeadComment, c.LineComment, c.FootComment = "", "", ""
	c.Content = nil
	for _, ch := range n.Content {
		c.Content = append(c.Content, copyNode(ch))
	}
	plain(&c)
	return &c
}

// drop removes key from mapping n.
func drop(n *yaml.Node, key string) {
	if n == nil || n.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			n.Content = append(n.Content[:i], n.Content[i+2:]...)
			return
		}
	}
}

// program is a one-step usage program, [{set: Q}], written in flow style.
func program(bytes int64) *yaml.Node {
	p := sequence(mapping(entry{key: "set", value: str(quantity(bytes))}))
	p.Style = yaml.FlowStyle
	return p
}

// quantity writes bytes as a binary quantity, rounded to the nearest KiB (the model
// charges memory in whole pages; a KiB is well below what any report shows).
func quantity(bytes int64) string {
	ki := (bytes + 512) / 1024
	return resource.NewQuantity(ki*1024, resource.BinarySI).String()
}

// jsonFieldNames lists the JSON names of a struct's fields, embedded inline structs
// flattened.
func jsonFieldNames(v any) map[string]bool {
	out := map[string]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
				walk(f.Type)
				continue
			}
			if name == "" {
				name = f.Name
			}
			out[name] = true
		}
	}
	walk(reflect.TypeOf(v))
	return out
}
