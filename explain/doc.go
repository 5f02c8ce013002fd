// Package explain turns a run's trace into a transcript a person can read top to bottom:
// one line per step of the simulated kubelet, in simulated time order, named as upstream
// names it (syncLoopIteration, HandlePodSyncs, UpdatePod, relist, SyncPod, ...).
//
// The transcript is built from trace events alone. It never looks at model state: what it
// cannot see in the trace it does not say, so every line can be matched with a step of the
// run (and with trace.jsonl). The little state it keeps (which pod worker is busy, which
// message a channel carries, which container an ID names) is itself derived from earlier
// events.
//
// A Transcript is a trace.Sink: hand it to engine.Run and it writes as the run goes. A few
// steps are held back until the events after them show what they were, so that related
// events print together (a select and the case it dispatched, a relist and the events it
// produced, a status write and the watch event it caused). Periodic steps that change
// nothing (a syncCh tick with no pod due, a housekeeping pass with nothing to clean, a
// relist that saw no change, a resync whose SyncPod had nothing to do) are counted and
// summarised in one faint line rather than printed one by one.
//
// Files: transcript.go (the sink, holding and printing), line.go, style.go, filter.go and
// quiet.go (layout, colour, --pod/--from/--to/--only, the summaries), kinds.go (the
// vocabulary and its categories), and one file per kubelet component's words: syncloop.go,
// podworker.go, resync.go, pleg.go, runtime.go, config.go (podConfig, API, status),
// resources.go (eviction, OOM, probes), scenario.go.
package explain
