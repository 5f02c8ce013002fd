#!/bin/sh
# same-output.sh REF_BIN [NEW_BIN]
# LONG=1 same-output.sh REF_BIN [NEW_BIN]
#
# The check behind "an optimization never changes output": it runs every built-in scenario
# (with its own seed and with seed 7) and shortened copies of the bench/ workloads under
# both binaries, writes every artifact with --out (report.json, report.html, junit.xml,
# timeline.csv, trace.jsonl, trace.perfetto.json) and compares them byte for byte, with
# stdout, stderr and the exit code, and those of the same run without --out. Build REF_BIN
# from the commit before the change, in a directory of its own (not with git stash: the
# stash is shared by every worktree of the repository):
#   rm -rf /tmp/ref && mkdir /tmp/ref && git archive HEAD | tar -x -C /tmp/ref
#   (cd /tmp/ref && go build -o /tmp/nodesim-ref ./cmd/nodesim)
#   go build -o bin/nodesim ./cmd/nodesim && sh scripts/same-output.sh /tmp/nodesim-ref
# The short workloads miss what only a long run reaches (a probe's run of successes past
# its counted range, a worker that fails after hours of success). LONG=1 adds the bench
# workloads at full length, compared by their report (a full day's trace is gigabytes),
# and the busy node's first 4 hours with every artifact: a few minutes more.
set -eu
ref=$1
new=${2:-./bin/nodesim}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0

run() { # run NAME ARGS...: one run under both binaries, compared
	name=$1
	shift
	for which in ref new; do
		if [ $which = ref ]; then bin=$ref; else bin=$new; fi
		out="$dir/$which/$name"
		mkdir -p "$out"
		rc=0
		if [ "${reportOnly:-}" != 1 ]; then
			"$bin" run "$@" -o json --out "$out" >"$out/stdout.json" 2>"$out/stderr" || rc=$?
			echo "$rc" >"$out/exit-code"
		fi
		# Without --out the run records no reasons (nothing reads them): the report is the same.
		rc=0
		"$bin" run "$@" -o json >"$out/alone.json" 2>"$out/alone.stderr" || rc=$?
		echo "$rc" >"$out/alone.exit-code"
	done
	if ! diff -r -q "$dir/ref/$name" "$dir/new/$name" >/dev/null; then
		echo "DIFFERS: $name"
		diff -r -q "$dir/ref/$name" "$dir/new/$name" | head -5
		fail=1
	fi
}

for s in $("$ref" scenarios | awk '{print $1}'); do
	run "$s" "$s"
	run "$s-seed7" "$s" --seed 7
done
# The bench workloads, short: the busy node's first 10 minutes (probes, crash loops, noisy
# memory), the full node's first 30 minutes, 1,000 pods for 5 minutes, and 2,000 of the 10,000-pod node's pods for 10 seconds.
sed 's/^  duration: .*/  duration: 10m/' bench/busy-node.yaml >"$dir/busy-node.yaml"
run busy-node "$dir/busy-node.yaml"
sed 's/^  duration: .*/  duration: 30m/' bench/full-node.yaml >"$dir/full-node.yaml"
run full-node "$dir/full-node.yaml"
sed 's/^  duration: .*/  duration: 5m/' bench/pods-1000.yaml >"$dir/pods-1000.yaml"
run pods-1000 "$dir/pods-1000.yaml"
awk '/^    - replicas/ { n++ } n <= 2' bench/pods-10000.yaml |
	sed 's/^  duration: .*/  duration: 10s/' >"$dir/pods-2000.yaml"
run pods-2000 "$dir/pods-2000.yaml"

if [ "${LONG:-}" = 1 ]; then
	sed 's/^  duration: .*/  duration: 4h/' bench/busy-node.yaml >"$dir/busy-node-4h.yaml"
	run busy-node-4h "$dir/busy-node-4h.yaml"
	reportOnly=1
	for w in busy-node full-node pods-1000; do
		run "$w-whole" "bench/$w.yaml"
	done
	reportOnly=
fi

n=$(ls "$dir/ref" | wc -l)
if [ $fail = 0 ]; then
	echo "same output: $n runs, every file identical"
else
	echo "output changed"
	exit 1
fi
