// Package sweep runs a scenario many times, over a grid of values for some of its fields and
// over several seeds, and summarizes how the outcomes move: how a team sees what its
// eviction thresholds (or any setting) change before it ships them.
package sweep

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// segment is one step of a path: a mapping key, or a sequence index.
type segment struct {
	key   string
	index int
	isIdx bool
}

// parsePath reads spec.kubelet.evictionHard[memory.available] or spec.pods[0].behavior.app:
// dots separate keys; brackets hold an index or a key that has dots in it.
func parsePath(p string) ([]segment, error) {
	var segs []segment
	for i := 0; i < len(p); {
		switch p[i] {
		case '.':
			i++
		case '[':
			end := strings.IndexByte(p[i:], ']')
			if end < 0 {
				return nil, fmt.Errorf("path %q: unclosed [", p)
			}
			inner := p[i+1 : i+end]
			if n, err := strconv.Atoi(inner); err == nil {
				segs = append(segs, segment{index: n, isIdx: true})
			} else {
				segs = append(segs, segment{key: inner})
			}
			i += end + 1
		default:
			j := i
			for j < len(p) && p[j] != '.' && p[j] != '[' {
				j++
			}
			segs = append(segs, segment{key: p[i:j]})
			i = j
		}
	}
	if len(segs) == 0 {
		return nil, fmt.Errorf("empty path")
	}
	return segs, nil
}

// set puts value at path in the document, creating missing mapping keys.
func set(root *yaml.Node, path []segment, value *yaml.Node, where string) error {
	n := root
	for i, s := range path {
		last := i == len(path)-1
		if s.isIdx {
			if n.Kind != yaml.SequenceNode || s.index < 0 || s.index >= len(n.Content) {
				return fmt.Errorf("%s: no element %d there", where, s.index)
			}
			if last {
				n.Content[s.index] = value
				return nil
			}
			n = n.Content[s.index]
			continue
		}
		if n.Kind != yaml.MappingNode {
			return fmt.Errorf("%s: %q is not under a mapping", where, s.key)
		}
		var next *yaml.Node
		for k := 0; k+1 < len(n.Content); k += 2 {
			if n.Content[k].Value == s.key {
				if last {
					n.Content[k+1] = value
					return nil
				}
				next = n.Content[k+1]
				break
			}
		}
		if next == nil {
			key := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s.key}
			if last {
				n.Content = append(n.Content, key, value)
				return nil
			}
			next = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			n.Content = append(n.Content, key, next)
		}
		n = next
	}
	return nil
}

// splitValues splits on commas that are not inside brackets, braces or quotes, so that a
// value may be a flow sequence or mapping: 100Mi,1Gi or [{set: 1Gi}],[{set: 2Gi}].
func splitValues(s string) []string {
	var out []string
	depth, start := 0, 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			depth--
		case c == ',' && depth == 0:
			out = append(out, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// commonPaths are settings a sweep often varies that a scenario may leave unwritten; a --set
// path creates missing mapping keys, so they are valid on any scenario.
var commonPaths = []string{
	"spec.kubelet.evictionHard[memory.available]",
	"spec.kubelet.evictionHard[nodefs.available]",
	"spec.kubelet.evictionSoft[memory.available]",
	"spec.kubelet.evictionSoftGracePeriod[memory.available]",
	"spec.kubelet.evictionMaxPodGracePeriod",
	"spec.kubelet.evictionPressureTransitionPeriod",
	"spec.kubelet.maxPods",
	"spec.kubelet.systemReserved.memory",
	"spec.kubelet.kubeReserved.memory",
}

// Paths lists the paths --set can take in a scenario document, sorted: each scalar the
// document holds, in the path syntax parsePath reads (a key with a dot in brackets, an index
// in brackets), and the common kubelet settings. It is for shell completion, so a document
// that does not parse gives only the common paths.
func Paths(doc []byte) []string {
	seen := map[string]bool{}
	for _, p := range commonPaths {
		seen[p] = true
	}
	var root yaml.Node
	if yaml.Unmarshal(doc, &root) == nil && len(root.Content) > 0 {
		walkPaths(root.Content[0], "", 0, seen)
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// maxPathDepth bounds the walk: completion never needs deeper paths, and a document with
// aliases must not make it run long.
const maxPathDepth = 12

func walkPaths(n *yaml.Node, prefix string, depth int, seen map[string]bool) {
	if depth > maxPathDepth || len(seen) > 5000 {
		return
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			var p string
			switch {
			case strings.ContainsAny(k, ".[]"):
				p = prefix + "[" + k + "]"
			case prefix == "":
				p = k
			default:
				p = prefix + "." + k
			}
			walkPaths(n.Content[i+1], p, depth+1, seen)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			walkPaths(c, prefix+"["+strconv.Itoa(i)+"]", depth+1, seen)
		}
	case yaml.ScalarNode:
		if prefix != "" {
			seen[prefix] = true
		}
	}
}
