package explain

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Category groups trace kinds by the kubelet component a reader may want to isolate
// (the --only flag).
type Category string

// The categories, in the order help text lists them.
const (
	// Config: the API server's view of pods and the podConfig merge into configCh.
	Config Category = "config"
	// PLEG: relists, lifecycle events, PLEG health.
	PLEG Category = "pleg"
	// Sync: the syncLoop itself: its select, the handlers, getPodsToSync, admission and
	// the runtime health gate.
	Sync Category = "sync"
	// Housekeeping: HandlePodCleanups, container garbage collection, podContainerDeletor.
	Housekeeping Category = "housekeeping"
	// Probes: probe workers' results.
	Probes Category = "probes"
	// Workers: pod workers, the runtime manager's steps inside SyncPod and the statuses
	// they set.
	Workers Category = "workers"
	// Eviction: the eviction manager, node pressure conditions, the OOM killer, stats.
	Eviction Category = "eviction"
	// CRI: calls into the container runtime and what the runtime's processes do.
	CRI Category = "cri"

	// always marks steps that frame the run (its start, end and scripted events): --only
	// never hides them.
	always Category = ""
	// other marks kinds this package does not know yet; they show unless --only is given.
	other Category = "other"
)

// Categories returns the categories --only accepts, in a fixed order (a new slice each
// call: the package keeps no mutable state).
func Categories() []Category {
	return []Category{Config, PLEG, Sync, Housekeeping, Probes, Workers, Eviction, CRI}
}

// ParseCategories reads a comma-separated --only value. Names are case-insensitive; an
// unknown name is an error that lists the accepted ones.
func ParseCategories(s string) (map[Category]bool, error) {
	out := map[Category]bool{}
	for _, f := range strings.Split(s, ",") {
		f = strings.ToLower(strings.TrimSpace(f))
		if f == "" {
			continue
		}
		c := Category(f)
		if !isCategory(c) {
			var names []string
			for _, n := range Categories() {
				names = append(names, string(n))
			}
			return nil, fmt.Errorf("unknown category %q (want one or more of %s)", f, strings.Join(names, ", "))
		}
		out[c] = true
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--only needs at least one category")
	}
	return out, nil
}

func isCategory(c Category) bool { return categoryIndex(c) < len(Categories()) }

// Options choose what the transcript shows and how.
type Options struct {
	// Title, when set, is printed as the first line (the command that made the transcript).
	Title string
	// Pod keeps only the steps of this pod (namespace/name) and the syncLoop steps that
	// dispatched it. Empty: every pod.
	Pod string
	// From and To bound the simulated time shown. To <= 0 means the end of the run.
	From, To time.Duration
	// Boot shows the kubelet's start before the scenario's time zero (negative times).
	// Without it the transcript starts at 0s, on a node that is already up.
	Boot bool
	// Only keeps the listed categories (nil or empty: all). Lines that frame the run
	// (its start and end, scripted events) are always kept.
	Only map[Category]bool
	// Color paints the output with ANSI escape codes (for a terminal).
	Color bool
}

// OnlyString renders Only in the fixed category order (for titles and messages).
func (o Options) OnlyString() string {
	var names []string
	for c := range o.Only {
		names = append(names, string(c))
	}
	sort.Slice(names, func(i, j int) bool { return categoryIndex(Category(names[i])) < categoryIndex(Category(names[j])) })
	return strings.Join(names, ",")
}

// categoryIndex is c's position in Categories(), or len(Categories()) when unknown.
func categoryIndex(c Category) int {
	all := Categories()
	for i, n := range all {
		if n == c {
			return i
		}
	}
	return len(all)
}
