package explain

import (
	"fmt"
	"io"
	"strings"
)

// Term maps a name that articles written against older kubelets use to the name upstream
// v1.37 uses for the same job, and to where the job shows in a transcript.
type Term struct {
	Old   string
	Now   string
	Where string
}

// Glossary lists the older names learners meet, in the order a pod meets the jobs.
func Glossary() []Term {
	return []Term{
		{"HTTP source (`--manifest-url`)", "`config/http.go` `NewSourceURL`, one of podConfig's sources (file, HTTP, API server); nodesim models the file and API server sources only", "`config  podConfig (file): ADD …` and `apiserver  pod … created → watch → podConfig (api): ADD … → configCh`; the select's first lines name the mux's sources; an HTTP source is not modelled"},
		{"`podConfig` channel `updates`", "`configCh` in `syncLoopIteration` (the podConfig mux's merged channel)", "`syncLoopIteration: ready [configCh] → chose configCh`; reports count it as `configCh`"},
		{"`dispatchWork`", "gone: the handlers (`HandlePodAdditions`, `HandlePodUpdates`, `HandlePodSyncs`) call `podWorkers.UpdatePod` directly", "`↳ UpdatePod ns/name (create|update|sync|kill)` under the handler"},
		{"`managePodLoop`", "`podWorkerLoop` in `pod_workers.go`, one per pod", "`new pod worker (podWorkerLoop)` on the track `podWorker ns/name`"},
		{"`syncPod` (lower case)", "`SyncPod`, `SyncTerminatingPod`, `SyncTerminatedPod` (the worker picks one by the pod's state)", "`SyncPod (update=…) …`, `SyncTerminatingPod …`, `SyncTerminatedPod …` on the worker's track"},
		{"`podKiller`", "gone since v1.22: killing is a pod worker's `SyncTerminatingPod`, asked for by `UpdatePod` with `SyncPodKill` (from `HandlePodRemoves`, `HandlePodCleanups`, the eviction manager's `killPodNow`)", "`↳ UpdatePod ns/name (kill)`, then `SyncTerminatingPod` and `killContainer` on the worker's track"},
		{"liveness channel", "`kl.livenessManager.Updates()` (also `readinessManager`, `startupManager`), channels with no name of their own", "`livenessCh` (`readinessCh`, `startupCh`) everywhere: `ready [livenessCh]` in a select, the reports' syncLoop counts, trace.jsonl and the Perfetto trace"},
		{"`containerManager` updates", "`kl.containerManager.Updates()`, a select case for device plugin and DRA health changes (a channel of 10)", "`containerManagerCh` in the select's list at the run's start; nodesim models no devices, so nothing sends on it and the case never becomes ready"},
		{"mirror pod creation in `syncPod`", "`tryReconcileMirrorPods`, called by `SyncPod` for static pods", "`tryReconcileMirrorPods: creates the mirror pod of static pod ns/name` on the worker's track, then `HandlePodAdditions mirror pod of static pod ns/name` and `podManager.AddPod … into the mirror-pod map` when the API server's copy comes back through the watch"},
	}
}

// WriteGlossary prints the glossary as a plain table for `explain --glossary`.
func WriteGlossary(w io.Writer) error {
	var b strings.Builder
	for _, t := range Glossary() {
		fmt.Fprintf(&b, "%s\n  upstream v1.37:  %s\n  in a transcript: %s\n\n", plainTerm(t.Old), plainTerm(t.Now), plainTerm(t.Where))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// GlossaryMarkdown renders the glossary as the README's table.
func GlossaryMarkdown() string {
	var b strings.Builder
	b.WriteString("| older name | upstream v1.37 | where it shows in a transcript |\n| --- | --- | --- |\n")
	for _, t := range Glossary() {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", t.Old, t.Now, t.Where)
	}
	return b.String()
}

func plainTerm(s string) string { return strings.ReplaceAll(s, "`", "") }
