package strictyaml

import (
	"go.yaml.in/yaml/v3"
)

// pair is one key/value entry of a mapping.
type pair struct {
	key, value *yaml.Node
	merged     bool // inherited through a merge key
}

// mappingPairs returns the entries of mapping n with YAML merge keys
// (`<<: *base` or `<<: [*a, *b]`) expanded, so every consumer (structs,
// maps, generic values, JSON conversion) sees the same entries.
//
// Merging follows the YAML merge-key spec: keys written in n override merged
// ones wherever the `<<` appears, and among several merged mappings the
// earlier one wins. Duplicates among n's own keys are kept so the caller can
// report them; merged entries that are overridden are dropped silently.
func (d *Decoder) mappingPairs(n *yaml.Node, path string) []pair {
	var (
		pairs  []pair
		merges []*yaml.Node
	)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k == nil {
			d.Errorf(n, path, "internal error: mapping node has a nil key")
			continue
		}
		if isMergeKey(k) {
			merges = append(merges, v)
			continue
		}
		pairs = append(pairs, pair{key: k, value: v})
	}
	if len(n.Content)%2 != 0 {
		d.Errorf(n, path, "internal error: mapping node has an odd number of children")
	}
	if len(merges) == 0 {
		return pairs
	}

	have := make(map[string]bool, len(pairs))
	for _, p := range pairs {
		if k := scalarKey(p.key); k != nil {
			have[k.Value] = true
		}
	}
	for _, m := range merges {
		pairs = d.merge(pairs, have, m, path, true)
	}
	return pairs
}

// merge appends the entries of the merge source src that are not yet in
// have. A source is a mapping, an alias to one, or (at the top level only) a
// sequence of those.
func (d *Decoder) merge(pairs []pair, have map[string]bool, src *yaml.Node, path string, top bool) []pair {
	if src == nil {
		d.Errorf(nil, path, "the value of a merge key (<<) must be a mapping or a sequence of mappings, got nothing")
		return pairs
	}
	if !d.enter(src, path) {
		return pairs
	}
	defer d.leave()

	switch src.Kind {
	case yaml.AliasNode:
		d.expandAlias(src, path, func(target *yaml.Node) {
			pairs = d.merge(pairs, have, target, path, top)
		})
	case yaml.MappingNode:
		inherited := d.mappingPairs(src, path)
		// Merged entries are decoded again at every use; charge them to
		// the expansion budget so that nested merges cannot blow up.
		if !d.charge(src, path, len(inherited)) {
			return pairs
		}
		for _, p := range inherited {
			if k := scalarKey(p.key); k != nil {
				if have[k.Value] {
					continue
				}
				have[k.Value] = true
			}
			pairs = append(pairs, pair{key: p.key, value: p.value, merged: true})
		}
	case yaml.SequenceNode:
		if top {
			for _, item := range src.Content {
				pairs = d.merge(pairs, have, item, path, false)
			}
			break
		}
		fallthrough
	default:
		d.Errorf(src, path, "the value of a merge key (<<) must be a mapping or a sequence of mappings, got %s", describe(src))
	}
	return pairs
}

// isMergeKey reports whether k is the YAML merge key `<<` (plain, or tagged
// !!merge); a quoted "<<" is an ordinary string key.
func isMergeKey(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && k.ShortTag() == mergeTag
}

// scalarKey returns the scalar node a key denotes (following one alias), or
// nil for non-scalar keys.
func scalarKey(k *yaml.Node) *yaml.Node {
	if k.Kind == yaml.AliasNode && k.Alias != nil {
		k = k.Alias
	}
	if k.Kind != yaml.ScalarNode {
		return nil
	}
	return k
}
