package strictyaml

import (
	"strings"
	"testing"
)

func TestSuggest(t *testing.T) {
	fields := []string{"evictionHard", "evictionSoft", "limits", "name", "maxPods", "requests", "spec"}
	tests := []struct {
		name       string
		candidates []string
		want       string
	}{
		{"evictonHard", fields, "evictionHard"},   // one deletion
		{"evictionhard", fields, "evictionHard"},  // case only
		{"EVICTIONHARD", fields, "evictionHard"},  // case only, far in edits
		{"limts", fields, "limits"},               // one deletion, short name
		{"limit", fields, "limits"},               // distance 1 and prefix
		{"nam", fields, "name"},                   // distance 1
		{"maxPod", fields, "maxPods"},             // distance 1
		{"requestsPerSecond", fields, "requests"}, // prefix, long extra part
		{"evic", fields, "evictionHard"},          // prefix of 4; first of equals wins
		{"evi", fields, ""},                       // prefix too short
		{"spce", fields, "spec"},                  // an adjacent swap is one edit
		{"kidn", []string{"apiVersion", "kind"}, "kind"},
		{"evictoinHrad", fields, "evictionHard"},  // two swaps: distance 2
		{"exictxonHxrx", fields, ""},              // distance 4 > limit 3
		{"evictionHardX", fields, "evictionHard"}, // insertion
		{"zzz", fields, ""},
		{"", fields, ""},
		{"name", nil, ""},
		{"néme", []string{"name"}, "name"},                                     // runes, not bytes
		{"evictionSofr", fields, "evictionSoft"},                               // nearer of two candidates
		{strings.Repeat("x", 10000), fields, ""},                               // long input stays cheap
		{"abcdefghijklmnop", []string{"abcdefghijklmXYZ"}, "abcdefghijklmXYZ"}, // limit capped at 3 (len/4 = 4)
		{"abcdefghijklmnop", []string{"abcdefghijkWXYZ"}, ""},                  // distance 5
	}
	for _, tt := range tests {
		if got := Suggest(tt.name, tt.candidates); got != tt.want {
			t.Errorf("Suggest(%.20q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestLevenshtein(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"a", "", 1},
		{"", "abc", 3},
		{"kitten", "sitting", 3},
		{"flaw", "lawn", 2},
		{"héllo", "hello", 1},
		{"spec", "sepc", 1},
		{"ca", "abc", 3},
	}
	for _, tt := range tests {
		if got := levenshtein(tt.a, tt.b); got != tt.want {
			t.Errorf("levenshtein(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
