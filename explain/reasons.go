package explain

// reasons turns the rule a component recorded when it decided (a trace event's "reason"
// attr) into the sentence a transcript prints after "why:". Explain never decides a reason
// itself: an event that carries none gets no why, and a recorded reason missing here is a
// test failure (TestEveryRecordedReasonIsExplained).
var reasons = map[string]string{
	"initial":                   "each new container's probe worker starts from the probe's initial value (liveness Success, readiness Failure, startup Unknown) and publishes it at once",
	"belowThreshold":            "a probe result is published only after failureThreshold failures (or successThreshold successes) in a row",
	"livenessActsOnFailureOnly": "syncLoopIteration acts on a liveness update only when it is a Failure; a Success (a new container's initial value) needs nothing",
	"exitedOnItsOwn":            "the kubelet does not watch processes: it learns of the exit at PLEG's next relist",
	"exitedWhenStopped":         "the kubelet stopped it: StopContainer returns once the process has exited, and the worker reads the status itself",
	"noExitedInstance":          "doBackOff finds no exited instance of the container (the kubelet killed it in this same sync), so there is nothing to back off from: the restart is immediate",
	"backOffStarted":            "doBackOff finds the last exit outside any back-off window, so the restart is immediate; it starts a back-off of %s from that exit (%s) for the next one",
	"removeAllDead":             "the pod is deleted or evicted (ShouldPodContentBeRemoved): all its dead instances go",
	"minimumGrace":              "killContainer never stops a container with less than 2s: a shorter grace period is raised to the minimum",
	"keepNewestDead":            "only older dead instances go: the newest stays for its logs and status",
}

// reasonText returns the sentence for a recorded reason, or "" for none.
func reasonText(reason string) string { return reasons[reason] }
