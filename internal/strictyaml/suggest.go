package strictyaml

import (
	"strings"
	"unicode/utf8"
)

// Suggest returns the candidate closest to name, or "" when none is close
// enough to be a plausible typo. A candidate qualifies when it equals name
// ignoring case, when its (case-insensitive) Levenshtein distance is at most
// max(1, len(name)/4) capped at 3, or when one is a prefix of the other and
// the shorter is at least 4 characters long ("limit" for "limits").
// Case-insensitive equality beats any edit distance, which beats a prefix
// match; ties go to the earlier candidate, so pass candidates in a stable
// order.
func Suggest(name string, candidates []string) string {
	lname := strings.ToLower(name)
	nlen := utf8.RuneCountInString(name)
	limit := min(3, max(1, nlen/4))

	best, bestScore := "", -1
	for _, c := range candidates {
		score, ok := closeness(lname, nlen, limit, c)
		if ok && (bestScore < 0 || score < bestScore) {
			best, bestScore = c, score
		}
	}
	return best
}

// closeness scores candidate c against the lower-cased name (lower is
// closer) and reports whether c qualifies at all.
func closeness(lname string, nlen, limit int, c string) (int, bool) {
	lc := strings.ToLower(c)
	if lc == lname {
		return 0, true
	}
	// Comparing lengths first keeps this cheap for absurdly long names.
	if abs(utf8.RuneCountInString(c)-nlen) <= limit {
		if dist := levenshtein(lname, lc); dist <= limit {
			return dist, true
		}
	}
	if isPrefixMatch(lname, lc) {
		// Rank after every edit-distance match, closer lengths first.
		return 10 + abs(len(lc)-len(lname)), true
	}
	return 0, false
}

// isPrefixMatch reports whether one of a, b is a prefix of the other and the
// shorter one has at least 4 runes.
func isPrefixMatch(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	return utf8.RuneCountInString(a) >= 4 && strings.HasPrefix(b, a)
}

// levenshtein returns the edit distance between a and b counted in runes, where swapping
// two adjacent runes counts as one edit (optimal string alignment): "sepc" is one typo away
// from "spec", as a person would judge it.
func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
