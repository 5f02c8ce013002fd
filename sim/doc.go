// Package sim is nodesim's discrete-event kernel. It knows nothing of Kubernetes.
//
// A Sim owns a virtual clock and a queue of events ordered by (time, priority, sequence).
// Run pops events one at a time on the caller's goroutine; an event is a plain func that
// may schedule more events. There are no goroutines, no wall clock and no global
// randomness, so a run is a pure function of its inputs and seed.
//
// Upstream kubelet components are goroutines that block on channels, timers and calls.
// Here each of them is a "process": a Clock with a track name (the goroutine upstream would
// have) and a priority. A process never blocks; where upstream code would wait, the model
// passes a continuation (a func to call when the wait is over) and returns. That one style
// is used by every component.
//
// Same-instant order is a documented model choice, not an accident: events at the same
// time run by Priority (runtime state changes, then PLEG, then config sources and tickers,
// then the syncLoop's select, then pod workers, then the status manager, then the eviction
// manager), then in the order they were scheduled.
package sim
