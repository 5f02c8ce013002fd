package trace

// Kinds for node resources, evictions, OOM kills and probes. The recording components
// (stats provider, eviction manager, OOM killer, prober) use these; reports and explain read
// them. Attribute values are plain decimal numbers (bytes, counts) unless noted.
const (
	// Stats is one refresh of the stats the eviction manager reads (cAdvisor housekeeping).
	// Name "node": attrs memoryCapacity, memoryWorkingSet, memoryAvailable,
	// allocatableMemoryAvailable, nodefsCapacity, nodefsUsed, nodefsAvailable,
	// nodefsInodesFree, imagefsCapacity, imagefsUsed, imagefsAvailable, pidsMax, pidsUsed.
	// Name "pod" (Pod set): attrs memory (working set), disk (writable layers, logs and
	// emptyDirs), pids.
	Stats Kind = "stats"

	// EvictionPass is one pass of the eviction manager's synchronize. Attrs: signals
	// (signal=observed,... in bytes or counts), met (thresholds met, comma-separated), and
	// "held" when a threshold is met but waits for its grace or transition period. The first
	// pass of each eviction manager also carries "hard": every hard threshold as the level its
	// signal is compared with (signal=bytes or count, comma-separated, percentages resolved).
	EvictionPass Kind = "evictionPass"
	// Eviction is one pod evicted. Attrs: signal, observed, threshold (quantities as in
	// manifests), gracePeriod (seconds), ranking (pod;exceedsRequests;priority;usageAboveRequests
	// entries joined by "|"), message.
	Eviction Kind = "eviction"
	// ThresholdCrossed is the ground truth the kubelet does not see: the moment memory use
	// crossed an eviction threshold's level, upward (attrs signal, threshold, direction "up")
	// or back down ("down"). The kubelet notices at its next eviction pass; the gap is the
	// eviction's detection latency.
	ThresholdCrossed Kind = "thresholdCrossed"
	// OOMKill is one process killed by the OOM killer. Attrs: kind ("cgroup" or "node"),
	// oomScoreAdj, candidates (pod/container=oom_score entries joined by ","), usage.
	OOMKill Kind = "oomKill"
	// SystemMemoryHeld is the kernel holding the node's system memory (outside pods) at what
	// capacity leaves once no pod process is left to kill: memory in use never exceeds
	// capacity. Attrs: requested (what the system usage program asked for), held (bytes).
	SystemMemoryHeld Kind = "systemMemoryHeld"

	// ProbeResult is one probe run. Name is liveness, readiness or startup; attrs result
	// (success, failure), counted (the consecutive count), and changed=true when the
	// worker's result flipped.
	ProbeResult Kind = "probeResult"
)
