package strictyaml

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Short forms of the YAML tags yaml.v3 resolves scalars to.
const (
	nullTag      = "!!null"
	boolTag      = "!!bool"
	strTag       = "!!str"
	intTag       = "!!int"
	floatTag     = "!!float"
	timestampTag = "!!timestamp"
	binaryTag    = "!!binary"
	mergeTag     = "!!merge"
)

// maxNumberLen bounds the length of numeric text we are willing to convert
// with math/big, so that a pathological literal cannot make us slow.
const maxNumberLen = 1000

// isNull reports whether n is a null scalar (`~`, `null`, an empty value or
// an all-zero constructed node).
func isNull(n *yaml.Node) bool {
	return (n.Kind == yaml.ScalarNode || n.Kind == 0) && n.ShortTag() == nullTag
}

// isQuoted reports whether the scalar was written in quotes, which is what
// made it a string; error messages use it to suggest removing them.
func isQuoted(n *yaml.Node) bool {
	return n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0
}

// describe renders a node for messages like "expected a string, got integer
// 123": the kind for collections, the resolved tag and value for scalars.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a sequence"
	case yaml.DocumentNode:
		return "a document"
	case yaml.AliasNode:
		return "an alias"
	case yaml.ScalarNode, 0:
	default:
		return "an unknown kind of node"
	}
	v := showValue(n.Value)
	switch tag := n.ShortTag(); tag {
	case strTag:
		return "string " + quoteShort(n.Value)
	case intTag:
		return "integer " + v
	case floatTag:
		return "float " + v
	case boolTag:
		return "boolean " + v
	case nullTag:
		return "null"
	case timestampTag:
		return "timestamp " + v
	case binaryTag:
		return "binary data"
	case mergeTag:
		return "merge key <<"
	default:
		return fmt.Sprintf("a value tagged %s", showValue(tag))
	}
}

// abbreviate shortens s for messages, keeping whole runes.
func abbreviate(s string) string {
	const limit = 40
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	r := []rune(s)
	return string(r[:limit]) + "..."
}

// quoteShort quotes s for messages, Go style, so that control characters
// and newlines cannot break the one-error-per-line output.
func quoteShort(s string) string {
	return strconv.Quote(abbreviate(s))
}

// showValue renders s unquoted when that is unambiguous (numbers, booleans,
// tags), quoted otherwise.
func showValue(s string) string {
	s = abbreviate(s)
	if q := strconv.Quote(s); q[1:len(q)-1] != s || s == "" {
		return q
	}
	return s
}

// parseBool accepts the YAML 1.2 core schema booleans, the only ones yaml.v3
// resolves to !!bool.
func parseBool(s string) (bool, bool) {
	switch s {
	case "true", "True", "TRUE":
		return true, true
	case "false", "False", "FALSE":
		return false, true
	}
	return false, false
}

// plainNumber strips the digit-group underscores yaml.v3 accepts in numbers.
func plainNumber(s string) string {
	if strings.IndexByte(s, '_') < 0 {
		return s
	}
	return strings.ReplaceAll(s, "_", "")
}

// errOutOfRange reports a number that is well-formed but does not fit.
var errOutOfRange = errors.New("out of range")

// parseInt parses a YAML integer the way yaml.v3 resolves one: optional sign,
// 0x/0o/0b prefixes, legacy leading-zero octal and digit underscores.
func parseInt(s string) (int64, error) {
	i, err := strconv.ParseInt(plainNumber(s), 0, 64)
	if errors.Is(err, strconv.ErrRange) {
		return 0, errOutOfRange
	}
	return i, err
}

// parseUint is parseInt for unsigned targets; negative values are out of
// range rather than malformed.
func parseUint(s string) (uint64, error) {
	p := plainNumber(s)
	if i, err := strconv.ParseInt(p, 0, 64); err == nil {
		if i < 0 {
			return 0, errOutOfRange
		}
		return uint64(i), nil
	}
	u, err := strconv.ParseUint(p, 0, 64)
	if err == nil {
		return u, nil
	}
	if errors.Is(err, strconv.ErrRange) || strings.HasPrefix(p, "-") {
		if _, ok := parseBigInt(s); ok {
			return 0, errOutOfRange
		}
	}
	return 0, err
}

// parseBigInt parses a YAML integer of any size.
func parseBigInt(s string) (*big.Int, bool) {
	p := plainNumber(s)
	if len(p) > maxNumberLen {
		return nil, false
	}
	return new(big.Int).SetString(p, 0)
}

// parseFloat parses a YAML float, including the .inf/.nan spellings.
func parseFloat(s string) (float64, error) {
	switch s {
	case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF":
		return math.Inf(1), nil
	case "-.inf", "-.Inf", "-.INF":
		return math.Inf(-1), nil
	case ".nan", ".NaN", ".NAN":
		return math.NaN(), nil
	}
	f, err := strconv.ParseFloat(plainNumber(s), 64)
	if errors.Is(err, strconv.ErrRange) {
		return 0, errOutOfRange
	}
	return f, err
}

// looksLikeInteger reports whether s is a plain run of digits with an
// optional sign. yaml.v3 resolves such text to !!float when it does not fit
// in 64 bits, and "out of range" is then the helpful message.
func looksLikeInteger(s string) bool {
	s = plainNumber(s)
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
