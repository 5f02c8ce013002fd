package strictyaml

import (
	"strconv"
	"strings"
)

// Join builds the path of a mapping entry. Identifier-like keys are appended
// with a dot ("spec.kubelet"); anything else, such as "memory.available" or
// "example.com/gpu", is quoted in brackets (`a["x/y"]`) so that the path stays
// unambiguous and can be split again by ErrorAt.
func Join(parent, key string) string {
	if !isIdentifier(key) {
		return parent + "[" + strconv.Quote(key) + "]"
	}
	if parent == "" {
		return key
	}
	return parent + "." + key
}

// Index builds the path of a sequence element: Index("spec.pods", 3) is
// "spec.pods[3]".
func Index(parent string, i int) string {
	return parent + "[" + strconv.Itoa(i) + "]"
}

// isIdentifier reports whether key can be written after a dot: non-empty and
// only [A-Za-z0-9_-].
func isIdentifier(key string) bool {
	if key == "" {
		return false
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}

// pathPrefixes returns the proper prefixes of path that end on a segment
// boundary, longest first, ending with "" (the root). For
// `a.b[2]["x.y"].c` that is `a.b[2]["x.y"]`, `a.b[2]`, `a.b`, `a`, "".
// Quoted bracket segments are skipped as a unit, so dots and brackets inside
// map keys do not split them.
func pathPrefixes(path string) []string {
	var ends []int // offsets where a segment ends (exclusive)
	i := 0
	for i < len(path) {
		switch path[i] {
		case '.':
			i++
			continue
		case '[':
			if i+1 < len(path) && path[i+1] == '"' {
				q, err := strconv.QuotedPrefix(path[i+1:])
				if err != nil {
					// Not a path we produced; give up on finer segments.
					i = len(path)
					continue
				}
				i += 1 + len(q)
			}
			if j := strings.IndexByte(path[i:], ']'); j >= 0 {
				i += j + 1
			} else {
				i = len(path)
			}
		default:
			for i < len(path) && path[i] != '.' && path[i] != '[' {
				i++
			}
		}
		ends = append(ends, i)
	}
	prefixes := make([]string, 0, len(ends)+1)
	for k := len(ends) - 1; k >= 0; k-- {
		if ends[k] < len(path) {
			prefixes = append(prefixes, path[:ends[k]])
		}
	}
	return append(prefixes, "")
}
