package kubelet

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"nodesim/model/container"
	"nodesim/model/pleg"
	"nodesim/model/podconfig"
	"nodesim/model/podworkers"
	"nodesim/model/prober/results"
	"nodesim/sim"
	"nodesim/trace"
)

// Trace kinds recorded by the syncLoop.
const (
	KindSkipSync trace.Kind = "skippingPodSynchronization"
	KindHandler  trace.Kind = "handler"
	// KindNoHandler is a message the syncLoop received and, by rule, acted on with no
	// handler. Name is the channel; attrs reason (the rule) and result.
	KindNoHandler      trace.Kind = "noHandler"
	KindHousekeeping   trace.Kind = "housekeeping"
	KindDispatch       trace.Kind = "dispatchWork"
	KindAdmitted       trace.Kind = "admitted"
	KindRejected       trace.Kind = "admissionRejected"
	KindPodSeen        trace.Kind = "podSeen"
	KindIterationWait  trace.Kind = "iterationWait"
	KindContainerClean trace.Kind = "cleanUpContainersInPod"
	// KindIgnored: a message the syncLoop received and, by rule, did nothing with.
	KindIgnored trace.Kind = "messageIgnored"
	// KindSelectCases is recorded once when a syncLoop starts: the select's cases in
	// upstream's order, each channel (attr key) with what sends on it (value), and its
	// capacity in the attr "cap/<channel>".
	KindSelectCases trace.Kind = "selectCases"
)

// The syncLoop's select cases, in the order NewSelect was given them.
const (
	caseConfig = iota
	casePLEG
	caseSync
	caseLiveness
	caseReadiness
	caseStartup
	caseContainerManager
	caseHousekeeping
)

// runtimeErrors is the health gate at the top of every loop pass (upstream
// runtimeState.runtimeErrors): the runtime must have answered a status check within 30s and
// PLEG must be healthy.
func (kl *Kubelet) runtimeErrors() error {
	if kl.runtimeUpSeen && kl.clk.Elapsed()-kl.lastRuntimeUp <= maxWaitForContainerRuntime && kl.pleg.IsHealthy() {
		return nil // the gate passes, as it does on nearly every pass
	}
	var errs []string
	if !kl.runtimeUpSeen {
		errs = append(errs, "container runtime status check may not have completed yet")
	} else if kl.clk.Elapsed()-kl.lastRuntimeUp > maxWaitForContainerRuntime {
		errs = append(errs, "container runtime is down")
	}
	if ok, err := kl.pleg.Healthy(); !ok {
		errs = append(errs, "PLEG is not healthy: "+err.Error())
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("%s", strings.Join(errs, ", "))
}

// syncLoop is one pass of the endless loop: the health gate, then one iteration. While the
// gate fails the loop sleeps with a back-off (100ms doubling to 5s) and consumes nothing, so
// configCh, plegCh and the probe channels fill up.
func (kl *Kubelet) syncLoop() {
	if kl.stopped {
		return
	}
	if err := kl.runtimeErrors(); err != nil {
		kl.clk.Record(&trace.Event{Kind: KindSkipSync, Attrs: []trace.Attr{{Key: "error", Value: err.Error()},
			{Key: "sleep", Value: kl.runtimeBackoff.String()}},
			Reason: trace.Because("runtimeErrors", "runtimeErrors() failed: syncLoop selects nothing, so no pod syncs and configCh and plegCh fill up, until the runtime and PLEG are healthy")})
		d := kl.runtimeBackoff
		kl.runtimeBackoff *= 2
		if kl.runtimeBackoff > runtimeErrorBackoffMax {
			kl.runtimeBackoff = runtimeErrorBackoffMax
		}
		kl.clk.Go(d, kl.syncLoopFn) // never stopped: syncLoop checks kl.stopped itself
		return
	}
	kl.runtimeBackoff = runtimeErrorBackoffBase
	kl.waitFrom = kl.clk.Elapsed()
	kl.sel.Next(kl.iterateFn)
}

// iterate is what the select calls with the case it chose: the wait, then one iteration.
func (kl *Kubelet) iterate(chosen int) {
	if kl.stopped {
		return
	}
	if wait := kl.clk.Elapsed() - kl.waitFrom; wait > 0 {
		kl.clk.Record(&trace.Event{Kind: KindIterationWait, Dur: wait})
	}
	kl.syncLoopIteration(chosen)
}

// syncLoopIteration handles the one case the select chose, then loops.
func (kl *Kubelet) syncLoopIteration(chosen int) {
	switch chosen {
	case caseConfig:
		u, _ := kl.podConfig.Updates().TryRecv()
		switch u.Op {
		case podconfig.ADD:
			kl.HandlePodAdditions(u.Pods)
		case podconfig.UPDATE, podconfig.DELETE:
			kl.HandlePodUpdates(u.Pods, u.Op)
		case podconfig.REMOVE:
			kl.HandlePodRemoves(u.Pods)
		case podconfig.RECONCILE:
			kl.HandlePodReconcile(u.Pods)
		}
		kl.sourcesReady.AddSource(u.Source)
	case casePLEG:
		e, _ := kl.pleg.Watch().TryRecv()
		if e.Type != pleg.ContainerRemoved {
			if pe := kl.podManager.entry(e.ID); pe != nil {
				kl.desiredHandler("HandlePodSyncs", plegCause(e.Type), []*corev1.Pod{pe.pod}, []*uidEntry{pe})
				kl.syncDesiredPod(pe.pod, pe, kl.clk.Now())
			} else {
				kl.clk.Record(&trace.Event{Kind: KindIgnored, Name: "plegCh", Attrs: []trace.Attr{{Key: "type", Value: string(e.Type)}},
					Reason: trace.Because("podNotInPodManager", "the event's pod is not in the pod manager (gone from every config source): the syncLoop ignores it")})
			}
		} else {
			if kl.removedIgnored.Reason == nil {
				// Made once: the type is always ContainerRemoved here, and recorded
				// attributes and reasons are never written.
				kl.removedIgnored = trace.Event{Kind: KindIgnored, Name: "plegCh", Attrs: []trace.Attr{{Key: "type", Value: string(pleg.ContainerRemoved)}},
					Reason: trace.Because("isSyncPodWorthy", "isSyncPodWorthy: a removed container changes nothing a sync could act on, so no handler runs")}
			}
			ev := kl.removedIgnored
			kl.clk.Record(&ev)
		}
		if e.Type == pleg.ContainerDied {
			kl.cleanUpContainersInPod(e.ID, e.Data)
		}
	case caseSync:
		kl.syncTicker.C.TryRecv()
		if pods := kl.getPodsToSync(); len(pods) > 0 {
			kl.desiredHandler("HandlePodSyncs", "syncCh", pods, kl.entriesToSync)
			kl.handleDesiredSyncs(pods, kl.entriesToSync)
			// The pods and entries stay in the reused lists until the next tick with as
			// many due overwrites them: a few pointers, to pods the pod manager holds for
			// as long as they are desired (an entry gone is garbage only to its holders).
		}
	case caseLiveness:
		u, _ := kl.livenessManager.Updates().TryRecv()
		if u.Result == results.Failure {
			kl.handleProbeSync(kl.podManager.entry(u.PodUID), u, "liveness")
		} else {
			kl.clk.Record(&trace.Event{Kind: KindIgnored, Name: "livenessCh", Attrs: []trace.Attr{{Key: "result", Value: u.Result.String()}},
				Reason: trace.Because("livenessSuccessIgnored", "the syncLoop acts on a liveness result only when it is Failure; a Success, such as the initial value the prober worker sets for each new container, changes nothing")})
		}
	case caseReadiness:
		u, _ := kl.readinessManager.Updates().TryRecv()
		e := kl.podManager.entry(u.PodUID)
		if e != nil {
			kl.statusManager.SetContainerReadiness(e.pod, u.ContainerID, u.Result == results.Success)
		}
		kl.handleProbeSync(e, u, "readiness")
	case caseStartup:
		u, _ := kl.startupManager.Updates().TryRecv()
		e := kl.podManager.entry(u.PodUID)
		if e != nil {
			kl.statusManager.SetContainerStartup(e.pod, u.ContainerID, u.Result == results.Success)
		}
		kl.handleProbeSync(e, u, "startup")
	case caseContainerManager:
		// Devices or dynamic resources changed health: sync the pods still in the pod
		// manager, ignore the rest (upstream's containerManager case). Nothing in nodesim
		// sends here; see containerManager.
		u, _ := kl.containerManager.Updates().TryRecv()
		var pods []*corev1.Pod
		for _, uid := range u.PodUIDs {
			if pod, ok := kl.podManager.GetPodByUID(uid); ok {
				pods = append(pods, pod)
			}
		}
		if len(pods) > 0 {
			kl.desiredHandler("HandlePodSyncs", containerManagerCh, pods, nil)
			kl.HandlePodSyncs(pods)
		} else {
			kl.clk.Record(&trace.Event{Kind: KindIgnored, Name: containerManagerCh,
				Reason: trace.Because("podNotInPodManager", "the event's pod is not in the pod manager (gone from every config source): the syncLoop ignores it")})
		}
	case caseHousekeeping:
		kl.housekeepingTicker.C.TryRecv()
		if !kl.sourcesReady.AllReady() {
			kl.clk.Record(&trace.Event{Kind: KindHousekeeping, Attrs: []trace.Attr{{Key: "skipped", Value: "not all sources ready"}},
				Reason: trace.Because("sourcesReady", "until every config source has reported (sourcesReady), cleanup could kill pods it has not heard of yet")})
			break
		}
		// Housekeeping runs inline: nothing else is dispatched until it finishes.
		cost := kl.HandlePodCleanups()
		kl.clk.Go(cost, kl.syncLoopFn)
		return
	}
	kl.syncLoop()
}

// selectCase is one case of the syncLoop's select: its channel and what feeds it.
type selectCase struct {
	ch interface {
		sim.Selectable
		Cap() int
	}
	from string
}

// selectCases are the select's cases in upstream's order (the case* constants): the one
// list both the select and its record are made from.
func (kl *Kubelet) selectCases() []selectCase {
	return []selectCase{
		caseConfig:           {kl.podConfig.Updates(), "podConfig mux, merging the sources " + strings.Join(kl.podConfig.Sources(), ", ") + " (the http source is not modelled)"},
		casePLEG:             {kl.pleg.Watch(), "pleg relist"},
		caseSync:             {kl.syncTicker.C, "ticker, every " + syncLoopTickPeriod.String()},
		caseLiveness:         {kl.livenessManager.Updates(), "prober workers (liveness)"},
		caseReadiness:        {kl.readinessManager.Updates(), "prober workers (readiness)"},
		caseStartup:          {kl.startupManager.Updates(), "prober workers (startup)"},
		caseContainerManager: {kl.containerManager.Updates(), "containerManager (device and DRA managers): not modelled, nothing sends"},
		caseHousekeeping:     {kl.housekeepingTicker.C, "ticker, every " + housekeepingPeriod.String()},
	}
}

// recordSelectCases records the syncLoop's whole select once, as it starts: every case
// upstream's syncLoopIteration has, in its order, with what feeds each channel, so that a
// transcript and the Perfetto trace can draw the graph, including the case nothing in this
// model ever makes ready.
func (kl *Kubelet) recordSelectCases(cases []selectCase) {
	e := &trace.Event{Kind: KindSelectCases, Name: "syncLoopIteration",
		Reason: trace.Because("containerManagerNotModelled", "nodesim models no device plugins and no DRA drivers: nothing sends on "+containerManagerCh+", so that case is in the select but never ready")}
	for _, c := range cases {
		e.Attrs = append(e.Attrs, trace.Attr{Key: c.ch.Name(), Value: c.from}, trace.Attr{Key: "cap/" + c.ch.Name(), Value: strconv.Itoa(c.ch.Cap())})
	}
	kl.clk.Record(e)
}

// handleProbeSync syncs the pod of probe result u, given e, the pod manager's entry of
// u's pod (nil: the pod is not desired, and nothing is synced). The callers look the
// entry up once, before the status manager takes the result: only the syncLoop's config
// handlers change the pod manager, and none runs inside an iteration's probe case.
func (kl *Kubelet) handleProbeSync(e *uidEntry, u results.Update, probe string) {
	if e == nil {
		return
	}
	kl.desiredHandler("HandlePodSyncs", probeCause(probe, u.Result), []*corev1.Pod{e.pod}, []*uidEntry{e})
	kl.syncDesiredPod(e.pod, e, kl.clk.Now())
}

// probeCause is the handler's cause for a probe result: "<probe>Ch <result>", with the
// combinations the syncLoop sees spelled out so that no string is joined per result.
func probeCause(probe string, r results.Result) string {
	switch {
	case probe == "liveness" && r == results.Failure:
		return "livenessCh Failure"
	case probe == "readiness" && r == results.Success:
		return "readinessCh Success"
	case probe == "readiness" && r == results.Failure:
		return "readinessCh Failure"
	case probe == "startup" && r == results.Success:
		return "startupCh Success"
	case probe == "startup" && r == results.Failure:
		return "startupCh Failure"
	}
	return probe + "Ch " + r.String()
}

// plegCause is the handler's cause for a PLEG event of type t: "plegCh <type>", with the
// types the syncLoop hands to a handler spelled out so that no string is joined per event.
func plegCause(t pleg.PodLifeCycleEventType) string {
	switch t {
	case pleg.ContainerStarted:
		return "plegCh ContainerStarted"
	case pleg.ContainerDied:
		return "plegCh ContainerDied"
	case pleg.PodSync:
		return "plegCh PodSync"
	case pleg.ContainerChanged:
		return "plegCh ContainerChanged"
	}
	return "plegCh " + string(t)
}

// handler records a handler called with pods (why: the channel and message).
func (kl *Kubelet) handler(name, why string, pods []*corev1.Pod) {
	kl.handlerWith(name, why, pods, mirrorPodKeys(pods), nil)
}

// desiredHandler is handler for pods taken from the pod manager's pod map (GetPodByUID,
// getPodsToSync), which never holds a mirror pod: there are none among them to look for.
// entries[i] is the pod manager's entry of pods[i], nil where the caller has none at hand
// (entries may be shorter than pods, or nil).
func (kl *Kubelet) desiredHandler(name, why string, pods []*corev1.Pod, entries []*uidEntry) {
	kl.handlerWith(name, why, pods, "", entries)
}

// handlerWith is handler given mirrors, the keys of the mirror pods among pods ("" for
// none, as mirrorPodKeys joins them), and entries, the pods' pod manager entries as
// desiredHandler takes them. The strings of a pod alone are handlerAttrs', reached through
// the entry when there is one (see uidEntry).
func (kl *Kubelet) handlerWith(name, why string, pods []*corev1.Pod, mirrors string, entries []*uidEntry) {
	if !kl.handlerChunk.records(kl.clk) {
		// Nobody reads handler events: none is built. What building one leaves behind (the
		// memo's strings) is read only by later handler events.
		kl.clk.Skip()
		return
	}
	if len(pods) == 1 && mirrors == "" {
		var hp *handlerPod
		if len(entries) > 0 && entries[0] != nil && entries[0].pod == pods[0] {
			first := entries[0]
			if first.handler == nil {
				// The memo's own, shared: the pod's addition already made it.
				first.handler = kl.handlerAttrs.pod(pods[0].UID)
			}
			hp = first.handler
		} else {
			hp = kl.handlerAttrs.pod(pods[0].UID)
		}
		key, attrs := hp.get(pods[0], why)
		kl.clk.Record(&trace.Event{Kind: KindHandler, Name: name, Pod: key, Attrs: attrs})
		return
	}
	n := 1
	if why != "" {
		n++
	}
	if mirrors != "" {
		n++
	}
	// The attributes are cut from the handler events' chunk (see handlerChunk), with room
	// for exactly these: pods, cause and mirror.
	e := &trace.Event{Kind: KindHandler, Name: name, Attrs: kl.handlerChunk.attrs.Make(n)[:0]}
	if len(pods) == 1 {
		e.Pod = container.Key(pods[0])
		e.Attrs = append(e.Attrs, trace.Attr{Key: "pods", Value: e.Pod})
	} else {
		e.Attrs = append(e.Attrs, trace.Attr{Key: "pods", Value: kl.handlerChunk.joinPodKeys(pods)})
	}
	if why != "" {
		e.Attrs = append(e.Attrs, trace.Attr{Key: "cause", Value: why})
	}
	if mirrors != "" {
		e.Attrs = append(e.Attrs, trace.Attr{Key: "mirror", Value: mirrors})
		e.Reason = trace.Because("mirrorPod", "a mirror pod is the API server's copy of a static pod: the pod manager files it in its mirror-pod map and the handler passes the static pod to its worker; the static pod itself keeps running")
	}
	kl.clk.Record(e)
}

// handlerChunk is where the handler events of several pods get their attributes and their
// joined pod keys: the sync ticks hand a handler the pods due, a few at a time, tens of
// thousands of times a day, and each event would otherwise allocate both. Both come from
// arenas many events share (trace.AttrArena, trace.TextArena).
type handlerChunk struct {
	attrs trace.AttrArena
	keys  trace.TextArena
	buf   []byte // joinPodKeys' scratch: only the string made from it is kept
	// recorded is whether anyone reads handler events (see sim.Sim.SetSkips): 0 until the
	// first handler asks, then 1 (yes) or 2 (no). The run's answer never changes.
	recorded int8
}

// records reports whether anyone reads handler events, asking clk the first time.
func (c *handlerChunk) records(clk *sim.Clock) bool {
	if c.recorded == 0 {
		c.recorded = 2
		if clk.Records(KindHandler) {
			c.recorded = 1
		}
	}
	return c.recorded == 1
}

// joinPodKeys is joinPodKeys(pods), as a part of the chunk's text.
func (c *handlerChunk) joinPodKeys(pods []*corev1.Pod) string {
	if len(pods) == 0 {
		return ""
	}
	b := c.buf[:0]
	for i, p := range pods {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(append(append(b, p.Namespace...), '/'), p.Name...)
	}
	c.buf = b
	return c.keys.Copy(b)
}

// handlerMemo keeps, for each pod the handlers were called with alone, its key and the
// handler event's attributes (a pod manager entry keeps a pointer to its pod's, so that
// the syncs that hold the entry find them without a lookup) for the first few causes seen, so that the syncs of a pod
// that PLEG and the probes wake again and again record the same strings instead of
// building them anew. There is room for every cause a pod usually meets (its addition,
// the sync tick, the PLEG's started and died, both readiness results); a rarer one past
// those is made each time. Each pod's entry is allocated once and filled in place, so a
// lookup copies nothing. An entry is used only while the pod's namespace and name are
// those it was made for; HandlePodRemoves drops the entry of a pod that leaves. Recorded
// attributes are never written, so one slice may serve many events.
type handlerMemo struct {
	byUID map[types.UID]*handlerPod
}

type handlerPod struct {
	namespace, name, key string
	n                    int
	causes               [6]handlerCause
}

type handlerCause struct {
	why   string
	attrs []trace.Attr
}

// pod is the memo's entry for uid, made empty at the first call.
func (m *handlerMemo) pod(uid types.UID) *handlerPod {
	hp := m.byUID[uid]
	if hp == nil {
		if m.byUID == nil {
			m.byUID = map[types.UID]*handlerPod{}
		}
		hp = &handlerPod{}
		m.byUID[uid] = hp
	}
	return hp
}

// get returns the key of pod, a non-mirror pod whose strings hp keeps, and the attributes
// of a handler event for it alone with cause why: pods=key, and cause=why unless why is
// empty.
func (hp *handlerPod) get(pod *corev1.Pod, why string) (string, []trace.Attr) {
	if hp.key == "" || hp.namespace != pod.Namespace || hp.name != pod.Name {
		*hp = handlerPod{namespace: pod.Namespace, name: pod.Name, key: container.Key(pod)}
	}
	for _, c := range hp.causes[:hp.n] {
		if c.why == why {
			return hp.key, c.attrs
		}
	}
	var attrs []trace.Attr
	if why == "" {
		attrs = []trace.Attr{{Key: "pods", Value: hp.key}}
	} else {
		attrs = []trace.Attr{{Key: "pods", Value: hp.key}, {Key: "cause", Value: why}}
	}
	if hp.n < len(hp.causes) {
		hp.causes[hp.n] = handlerCause{why: why, attrs: attrs}
		hp.n++
	}
	return hp.key, attrs
}

// forget drops what get kept for a pod that left the pod manager.
func (m *handlerMemo) forget(uid types.UID) { delete(m.byUID, uid) }

// joinPodKeys joins the keys of pods with commas, as strings.Join of their container.Key would.
func joinPodKeys(pods []*corev1.Pod) string {
	if len(pods) == 0 {
		return ""
	}
	n := len(pods) - 1
	for _, p := range pods {
		n += len(p.Namespace) + 1 + len(p.Name)
	}
	var b strings.Builder
	b.Grow(n)
	for i, p := range pods {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(p.Namespace)
		b.WriteByte('/')
		b.WriteString(p.Name)
	}
	return b.String()
}

// mirrorPodKeys joins the keys of the mirror pods among pods with commas ("" if none).
func mirrorPodKeys(pods []*corev1.Pod) string {
	var mirrors []*corev1.Pod
	for _, p := range pods {
		if podconfig.IsMirrorPod(p) {
			mirrors = append(mirrors, p)
		}
	}
	return joinPodKeys(mirrors)
}

// getPodsToSync returns the pods whose work-queue time has come, and those past their
// active deadline (upstream getPodsToSync), in UID order. Only the due pods and the pods
// with an active deadline are looked at: both lists come in UID order, and are merged.
//
// The list is kl.podsToSync, reused at every tick, and kl.entriesToSync holds, at the
// same places, the pods' pod manager entries (nil for a pod only past its deadline): its
// one caller, the syncCh case of syncLoopIteration, hands them to handler and
// handleDesiredSyncs, which read them before they return and keep none of them
// (UpdatePod keeps the pod, not the list).
func (kl *Kubelet) getPodsToSync() []*corev1.Pod {
	q := kl.workQueue
	due := q.takeDue()
	deadlined := kl.podManager.podsWithActiveDeadline()
	out, entries := kl.podsToSync[:0], kl.entriesToSync[:0]
	if len(deadlined) == 0 {
		// No pod has an active deadline (the usual node): the due pods are the answer.
		for _, t := range due {
			if e := kl.duePod(&q.entries[t.id]); e != nil {
				out, entries = append(out, e.pod), append(entries, e)
			}
		}
		kl.podsToSync, kl.entriesToSync = out[:0], entries
		return out
	}
	for i := 0; i < len(due) || len(deadlined) > 0; {
		var qe *queueEntry
		if i < len(due) {
			qe = &q.entries[due[i].id]
		}
		switch {
		case len(deadlined) == 0 || qe != nil && qe.uid < deadlined[0].UID:
			// Due; a pod no longer desired is left out.
			if e := kl.duePod(qe); e != nil {
				out, entries = append(out, e.pod), append(entries, e)
			}
			i++
		case qe != nil && qe.uid == deadlined[0].UID:
			out, entries = append(out, deadlined[0]), append(entries, nil)
			i, deadlined = i+1, deadlined[1:]
		default:
			if kl.pastActiveDeadline(deadlined[0]) {
				out, entries = append(out, deadlined[0]), append(entries, nil)
			}
			deadlined = deadlined[1:]
		}
	}
	kl.podsToSync, kl.entriesToSync = out[:0], entries
	return out
}

// duePod is the pod manager's entry for the pod of qe, the queue entry of a pod takeDue
// returned, nil if the pod is not desired. The pod manager entry is kept in the queue
// entry, so that the pod's later syncs read it there instead of looking it up: an entry
// not marked gone is the pod manager's current one for the UID (see uidEntry).
func (kl *Kubelet) duePod(qe *queueEntry) *uidEntry {
	if qe.pod == nil || qe.pod.gone {
		qe.pod = kl.podManager.entry(qe.uid)
	}
	return qe.pod
}

func (kl *Kubelet) pastActiveDeadline(pod *corev1.Pod) bool {
	if pod.Spec.ActiveDeadlineSeconds == nil {
		return false
	}
	start, ok := kl.statusManager.GetStartTime(pod.UID)
	if !ok {
		return false
	}
	return kl.clk.Since(start) >= time.Duration(*pod.Spec.ActiveDeadlineSeconds)*time.Second
}

// dispatchWork hands a pod to its worker.
func (kl *Kubelet) dispatchWork(pod *corev1.Pod, syncType podworkers.UpdateType, mirrorPod *corev1.Pod, start time.Time) {
	kl.podWorkers.UpdatePod(podworkers.UpdatePodOptions{Pod: pod, MirrorPod: mirrorPod, UpdateType: syncType, StartTime: start})
}

func sortedStringKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
