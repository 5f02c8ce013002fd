package reports

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"nodesim/trace"
)

// PerfettoWriter streams trace.perfetto.json, the run in Chrome's trace-event format, which
// Perfetto (ui.perfetto.dev) and chrome://tracing open: one thread per upstream goroutine
// (the event's Track: syncLoop, each pod worker, pleg, the podConfig mux, the eviction
// manager, each probe worker, ...) and per ticker; a complete ("X") slice for each step that
// takes time, a one-nanosecond slice for each step an arrow starts or ends on, an instant
// ("i") for every other step. Arrows ("s" to "f", each bound to the slice around it) run
// from each channel send to its receive, from each tick to the select that took it, from
// each UpdatePod's caller to the worker's next sync, from a relist that wrote the pod cache
// to the worker it woke, and from a relist request to the relist serving it. Blocking
// waits are slices of their simulated length; counters show node memory, each channel's
// depth and the pod manager's maps. It is a trace.Sink and writes as events arrive; it
// holds only the thread ids and the arrows and waits not yet closed.
type PerfettoWriter struct {
	w     *bufio.Writer
	buf   []byte   // the event being written, reused from event to event
	args  perfArgs // the arguments of the event being written (see eventArgs)
	tids  map[string]int
	sends map[uint64]pendingSend
	// updates holds, per pod, the UpdatePod calls not yet picked up by a sync of its worker.
	updates map[string][]pendingSend
	// caller is the last step recorded outside the pod workers: the goroutine that calls
	// UpdatePod when the call is recorded on the worker's own track.
	caller struct {
		at  time.Duration
		tid int
	}
	nextFlow uint64
	// waits holds the blocking calls begun and not yet returned (a worker's GetNewerThan by
	// pod, a StopContainer by pod/container), drawn as one slice when they return.
	waits map[string]pendingSend
	// relist is the last PLEG relist with a duration: the cache writes of a relist wake
	// the workers waiting in GetNewerThan at the instant it ends.
	relist pendingSend
	// relistRequests holds, by pod UID, the on-demand relists asked for and not yet served.
	relistRequests map[string]pendingSend
	written        int
	cap            eventCap
	err            error
}

// SetMaxEvents keeps at most n trace events in the file (0: all); Finish then marks a cut
// file with a global instant at the first event left out and a "truncated" entry in the
// document's metadata.
func (p *PerfettoWriter) SetMaxEvents(n int) { p.cap.max = n }

// pendingSend is a channel send waiting for its receive, which draws its flow arrow.
type pendingSend struct {
	ts   time.Duration
	tid  int
	name string
}

// stepSlice is the duration drawn for a step that takes no simulated time but must be a
// slice, because a flow arrow starts or ends on it.
const stepSlice = time.Nanosecond

// perfettoPid is the one process of the trace: the node's kubelet.
const perfettoPid = 1

// chromeEvent is one event of the trace-event format, written as the JSON object
//
//	{"name":…,"cat":…,"ph":…,"ts":…,"dur":…,"pid":…,"tid":…,"s":…,"id":…,"bp":…,"args":{…}}
//
// with cat, dur, s, id, bp and args left out when empty (see emit). Ts and Dur are written
// in microseconds (see appendMicros); Dur is written when HasDur is set.
type chromeEvent struct {
	Name string
	// NameDetail, when set, is written after Name and a space, as part of the name: an
	// event's slice is named by its kind and its name, without joining them in a string.
	NameDetail string
	Cat        string
	Ph         string
	Ts         time.Duration
	Dur        time.Duration
	HasDur     bool
	Pid        int
	Tid        int
	Scope      string
	ID         uint64
	Bp         string
	Args       perfArgs
}

// perfArg is one argument of a trace event: a string, an integer or a list of strings.
type perfArg struct {
	key  string
	kind perfArgKind
	str  string
	num  int64
	list []string
}

type perfArgKind uint8

const (
	argString perfArgKind = iota
	argInt
	argUint
	argStrings
)

// perfArgs are an event's arguments, one per key; they are written sorted by key, as a
// map of them would be.
type perfArgs []perfArg

// set gives key its value, replacing the one it had, as a map assignment does.
func (as perfArgs) set(a perfArg) perfArgs {
	for i := range as {
		if as[i].key == a.key {
			as[i] = a
			return as
		}
	}
	return append(as, a)
}

func (as perfArgs) setString(key, v string) perfArgs {
	return as.set(perfArg{key: key, kind: argString, str: v})
}

func (as perfArgs) setInt(key string, v int64) perfArgs {
	return as.set(perfArg{key: key, kind: argInt, num: v})
}

// endStamped lists the kinds recorded once their step is over, with At its end; every other
// kind with a duration is recorded as its step begins (a CRI call, housekeeping, a preStop
// hook, a runtime outage). trace.Event does not say which, so this list does.
func endStamped(k trace.Kind) bool {
	switch k {
	case kindIterationWait, kindSyncEnd, kindRelist, kindRelistFailed, kindPulled:
		return true
	}
	return false
}

// NewPerfettoWriter starts the trace on w; process names the one process (the run). Call
// Finish at the end.
func NewPerfettoWriter(w io.Writer, process string) *PerfettoWriter {
	bw := bufio.NewWriterSize(w, 1<<16)
	p := &PerfettoWriter{w: bw, tids: map[string]int{}, sends: map[uint64]pendingSend{}, updates: map[string][]pendingSend{}, waits: map[string]pendingSend{}, relistRequests: map[string]pendingSend{}}
	if _, err := bw.WriteString("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n"); err != nil {
		p.err = fmt.Errorf("writing perfetto trace: %w", err)
	}
	p.emit(&chromeEvent{Name: "process_name", Ph: "M", Pid: perfettoPid, Args: perfArgs{}.setString("name", process)})
	return p
}

// appendMicros appends d in microseconds, exactly (nanoseconds as decimals), when that is a
// valid JSON number, and reports whether it is: a negative time with a fraction of a
// microsecond gives none (it never occurs: every time drawn is at or after time zero).
func appendMicros(dst []byte, d time.Duration) ([]byte, bool) {
	if d < 0 && d%time.Microsecond != 0 {
		return dst, false
	}
	us, ns := int64(d/time.Microsecond), int64(d%time.Microsecond)
	dst = strconv.AppendInt(dst, us, 10)
	if ns == 0 {
		return dst, true
	}
	// ns in 1..999 as three digits, without the trailing zeros.
	digits := [3]byte{byte('0' + ns/100), byte('0' + ns/10%10), byte('0' + ns%10)}
	n := 3
	for digits[n-1] == '0' {
		n--
	}
	dst = append(dst, '.')
	return append(dst, digits[:n]...), true
}

// tid returns the thread of track, naming it on first use.
func (p *PerfettoWriter) tid(track string) int {
	if id, ok := p.tids[track]; ok {
		return id
	}
	id := len(p.tids) + 1
	p.tids[track] = id
	name := track
	if name == "" {
		name = "(no goroutine)"
	}
	p.emit(&chromeEvent{Name: "thread_name", Ph: "M", Pid: perfettoPid, Tid: id, Args: perfArgs{}.setString("name", name)})
	p.emit(&chromeEvent{Name: "thread_sort_index", Ph: "M", Pid: perfettoPid, Tid: id, Args: perfArgs{}.setInt("sort_index", int64(id))})
	return id
}

// emit writes ev, a comma before it unless it is the first: the bytes json.Encoder wrote
// for the struct this replaced (its fields in order, empty optional ones left out, a
// newline after each), written by hand into a reused buffer (see jsonenc.go).
func (p *PerfettoWriter) emit(ev *chromeEvent) {
	if p.err != nil {
		return
	}
	if p.written > 0 {
		if _, err := p.w.WriteString(","); err != nil {
			p.err = fmt.Errorf("writing perfetto trace: %w", err)
			return
		}
	}
	b := append(p.buf[:0], `{"name":"`...)
	b = appendJSONStringBody(b, ev.Name)
	if ev.NameDetail != "" {
		// A space ends any UTF-8 sequence Name ends with, so the two parts escape as
		// their concatenation does.
		b = appendJSONStringBody(append(b, ' '), ev.NameDetail)
	}
	b = append(b, '"')
	if ev.Cat != "" {
		b = append(b, `,"cat":`...)
		b = appendJSONString(b, ev.Cat)
	}
	b = append(b, `,"ph":`...)
	b = appendJSONString(b, ev.Ph)
	b = append(b, `,"ts":`...)
	b, ok := appendMicros(b, ev.Ts)
	if !ok {
		p.err = fmt.Errorf("writing perfetto trace: no timestamp for %dns", int64(ev.Ts))
		return
	}
	if ev.HasDur {
		b = append(b, `,"dur":`...)
		if b, ok = appendMicros(b, ev.Dur); !ok {
			p.err = fmt.Errorf("writing perfetto trace: no duration for %dns", int64(ev.Dur))
			return
		}
	}
	b = append(b, `,"pid":`...)
	b = strconv.AppendInt(b, int64(ev.Pid), 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendInt(b, int64(ev.Tid), 10)
	if ev.Scope != "" {
		b = append(b, `,"s":`...)
		b = appendJSONString(b, ev.Scope)
	}
	if ev.ID != 0 {
		b = append(b, `,"id":`...)
		b = strconv.AppendUint(b, ev.ID, 10)
	}
	if ev.Bp != "" {
		b = append(b, `,"bp":`...)
		b = appendJSONString(b, ev.Bp)
	}
	if len(ev.Args) > 0 {
		b = append(b, `,"args":`...)
		b = appendPerfArgs(b, ev.Args)
	}
	b = append(b, '}', '\n')
	p.buf = b
	if _, err := p.w.Write(b); err != nil {
		p.err = fmt.Errorf("writing perfetto trace: %w", err)
		return
	}
	p.written++
}

// appendPerfArgs appends args as a JSON object, its keys in byte order. It sorts args in
// place: an event has a handful, so an insertion sort is the cheapest.
func appendPerfArgs(dst []byte, args perfArgs) []byte {
	for i := 1; i < len(args); i++ {
		for j := i; j > 0 && args[j].key < args[j-1].key; j-- {
			args[j], args[j-1] = args[j-1], args[j]
		}
	}
	dst = append(dst, '{')
	for i := range args {
		a := &args[i]
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONString(dst, a.key)
		dst = append(dst, ':')
		switch a.kind {
		case argString:
			dst = appendJSONString(dst, a.str)
		case argInt:
			dst = strconv.AppendInt(dst, a.num, 10)
		case argUint:
			dst = strconv.AppendUint(dst, uint64(a.num), 10)
		case argStrings:
			dst = appendJSONStrings(dst, a.list)
		}
	}
	return append(dst, '}')
}

// Record takes one event. The kubelet's boot before time zero is left out, as in every
// report; a slice that began during the boot is cut at time zero.
func (p *PerfettoWriter) Record(e *trace.Event) {
	if p.err != nil {
		return
	}
	if e.Kind == kindSelectCases {
		p.selectCases(e)
		return
	}
	if e.At < 0 || !p.cap.admit(e) {
		return
	}
	tid := p.tid(e.Track)
	// The slice's name is the kind and the event's name, joined only where it is kept
	// (kindName); the slice itself writes the two parts.
	ev := chromeEvent{Name: string(e.Kind), Cat: string(e.Kind), Pid: perfettoPid, Tid: tid, Args: p.eventArgs(e)}
	if e.Name != "" && e.Name != string(e.Kind) {
		ev.NameDetail = e.Name
	}
	if e.Dur > 0 {
		start, end := e.At, e.At+e.Dur
		if endStamped(e.Kind) {
			start, end = e.At-e.Dur, e.At
		}
		if end <= 0 {
			return // the whole step was part of the boot
		}
		start = max(start, 0)
		ev.Ph, ev.Ts, ev.Dur, ev.HasDur = "X", start, end-start, true
	} else if e.Flow != 0 && (e.Kind == trace.Send || e.Kind == trace.Recv) || e.Kind == kindSyncStart || e.Kind == kindUpdatePod ||
		e.Kind == trace.Select || e.Kind == kindCacheReady || e.Kind == kindRelistRequest {
		// Perfetto binds a flow arrow to the slice around it on the arrow's thread and drops
		// an arrow that has none: a channel step is a slice of one nanosecond, which cannot
		// overlap another slice partly since simulated time steps in whole nanoseconds.
		ev.Ph, ev.Ts, ev.Dur, ev.HasDur = "X", e.At, stepSlice, true
	} else {
		ev.Ph, ev.Ts, ev.Scope = "i", e.At, "t"
	}
	p.emit(&ev)

	if !strings.HasPrefix(e.Track, "podWorker ") {
		p.caller.at, p.caller.tid = e.At, tid
	}
	switch e.Kind {
	case kindUpdatePod:
		// The caller (the syncLoop's handler, housekeeping, the eviction manager) is the
		// goroutine of the last step recorded elsewhere at this instant; the kernel runs one
		// step at a time, so nothing else runs between that step and the call.
		from := tid
		if e.Track != "" && strings.HasPrefix(e.Track, "podWorker ") && p.caller.at == e.At && p.caller.tid != 0 {
			from = p.caller.tid
		}
		if from != tid {
			p.emit(&chromeEvent{Name: ev.Name, NameDetail: ev.NameDetail, Cat: string(e.Kind), Ph: "X", Ts: e.At, Dur: stepSlice, HasDur: true, Pid: perfettoPid, Tid: from, Args: ev.Args})
		}
		p.updates[e.Pod] = append(p.updates[e.Pod], pendingSend{ts: e.At, tid: from, name: kindName(e)})
	case kindSyncStart:
		// Every UpdatePod since the worker's last sync is picked up by this one.
		for _, u := range p.updates[e.Pod] {
			if u.tid == tid {
				// The worker queued itself another sync (a RestartAllContainers reset
				// syncs again at once): no message crosses goroutines, so no arrow.
				continue
			}
			p.flow("UpdatePod", u.name, u.ts, u.tid, e.At, tid)
		}
		delete(p.updates, e.Pod)
	case kindStats:
		// The node's memory as the eviction manager reads it, a counter track of bytes.
		if e.Name == "node" {
			args := p.args[:0]
			for _, k := range [...]string{"memoryWorkingSet", "memoryAvailable"} {
				if v, err := strconv.ParseInt(e.Attr(k), 10, 64); err == nil {
					args = args.setInt(k, v)
				}
			}
			p.args = args
			if len(args) > 0 {
				p.emit(&chromeEvent{Name: "node memory (bytes)", Ph: "C", Ts: e.At, Pid: perfettoPid, Args: args})
			}
		}
	case kindWaitCache:
		p.waits["cache "+e.Pod] = pendingSend{ts: e.At, tid: tid, name: e.Name + " (waiting)"}
	case kindCacheReady:
		p.endWait("cache "+e.Pod, e)
		// The worker waiting in GetNewerThan was woken by the relist that wrote the pod
		// cache at this instant: an arrow from the end of that relist's slice.
		if r := p.relist; r.tid != 0 && r.ts == e.At {
			p.flow("podCache", "podCache → GetNewerThan", r.ts-stepSlice, r.tid, e.At, tid)
		}
	case kindPodManager:
		// The pod manager's two maps, a counter track each: the desired pods and the
		// mirror pods.
		args := p.args[:0]
		for _, k := range [...]string{"pods", "mirrorPods"} {
			if v, err := strconv.Atoi(e.Attr(k)); err == nil {
				args = args.setInt(k, int64(v))
			}
		}
		p.args = args
		if len(args) > 0 {
			p.emit(&chromeEvent{Name: "podManager", Ph: "C", Ts: e.At, Pid: perfettoPid, Args: args})
		}
	case kindRelistRequest:
		p.relistRequests[e.Attr("uid")] = pendingSend{ts: e.At, tid: tid, name: "RequestPodRelist"}
	case kindRelist:
		if e.Dur >= stepSlice {
			p.relist = pendingSend{ts: e.At, tid: tid, name: kindName(e)}
			start := e.At - e.Dur
			if e.Name == "relistPod" {
				// The on-demand relist that serves a worker's request: an arrow from the
				// request to the relist's start.
				if r, ok := p.relistRequests[e.Attr("uid")]; ok && r.ts <= start {
					delete(p.relistRequests, e.Attr("uid"))
					p.flow("relistRequest", r.name, r.ts, r.tid, start, tid)
				}
			} else {
				// A periodic relist covers the requests made before it began: PLEG drops them.
				for uid, r := range p.relistRequests {
					if r.ts <= start {
						delete(p.relistRequests, uid)
					}
				}
			}
		}
	case trace.Select:
		// A ticker's tick is not recorded as it is sent; the select records when it was.
		// Its arrow starts on a thread of its own for the ticker.
		// Most selects took no tick: they have no sentAt, whose parse error would allocate.
		if sentAt := e.Attr("sentAt"); sentAt != "" {
			if at, err := strconv.ParseInt(sentAt, 10, 64); err == nil && at >= 0 {
				from := p.tid("ticker " + e.Name)
				p.emit(&chromeEvent{Name: "tick", Cat: "ticker", Ph: "X", Ts: time.Duration(at), Dur: stepSlice, HasDur: true, Pid: perfettoPid, Tid: from})
				p.flow("ticker", e.Name, time.Duration(at), from, e.At, tid)
			}
		}
	case kindCRICall:
		// A StopContainer recorded without a duration blocks until the process exits.
		if e.Name == "StopContainer" && e.Dur == 0 {
			p.waits["stop "+e.Pod+"/"+e.Container] = pendingSend{ts: e.At, tid: tid, name: "StopContainer (waiting for exit)"}
		}
	case kindContainerExit:
		if e.Attr("kubeletLearnsBy") == "stopContainer" {
			p.endWait("stop "+e.Pod+"/"+e.Container, e)
		}
	}
	switch e.Kind {
	case trace.Send, trace.Recv, trace.Drop, trace.Block:
		// The channel's depth after the step, a counter track per channel.
		if n, err := strconv.Atoi(e.Attr("len")); err == nil {
			p.args = p.args[:0].setInt("len", int64(n))
			p.emit(&chromeEvent{Name: e.Name + " depth", Ph: "C", Ts: e.At, Pid: perfettoPid, Args: p.args})
		}
	}
	switch e.Kind {
	case trace.Send:
		if e.Flow != 0 {
			p.sends[e.Flow] = pendingSend{ts: e.At, tid: tid, name: e.Name}
		}
	case trace.Recv:
		// The arrow is drawn once both ends are known, so that every start has its end;
		// a send never received (a restart dropped it) keeps only its instant.
		if s, ok := p.sends[e.Flow]; ok && e.Flow != 0 {
			delete(p.sends, e.Flow)
			p.emit(&chromeEvent{Name: s.name, Cat: "channel", Ph: "s", Ts: s.ts, Pid: perfettoPid, Tid: s.tid, ID: e.Flow, Bp: "e"})
			p.emit(&chromeEvent{Name: s.name, Cat: "channel", Ph: "f", Ts: e.At, Pid: perfettoPid, Tid: tid, ID: e.Flow, Bp: "e"})
		}
	}
}

// selectCases draws the syncLoop's select as its syncLoop starts (at time zero when that
// was during the boot): an instant on the syncLoop listing every case, and a thread for
// the container manager, whose channel nothing in nodesim sends on, so that the graph
// shows the case.
func (p *PerfettoWriter) selectCases(e *trace.Event) {
	ts := max(e.At, 0)
	tid := p.tid(e.Track)
	args := p.eventArgs(e).setString("recordedAt", e.At.String())
	p.args = args
	p.emit(&chromeEvent{Name: "selectCases " + e.Name, Cat: string(e.Kind), Ph: "i", Scope: "t", Ts: ts, Pid: perfettoPid, Tid: tid, Args: args})
	if from := e.Attr(containerManagerCh); from != "" {
		p.emit(&chromeEvent{Name: containerManagerCh + ": " + from, Cat: string(e.Kind), Ph: "i", Scope: "t", Ts: ts, Pid: perfettoPid, Tid: p.tid("containerManager")})
	}
}

// kindName is the name of e's slice: its kind, and its name when that says more.
func kindName(e *trace.Event) string {
	if e.Name != "" && e.Name != string(e.Kind) {
		return string(e.Kind) + " " + e.Name
	}
	return string(e.Kind)
}

// flow draws an arrow of category cat from (from, fromTid) to (to, toTid); both ends must
// lie in slices on their threads.
func (p *PerfettoWriter) flow(cat, name string, from time.Duration, fromTid int, to time.Duration, toTid int) {
	p.nextFlow++
	id := 1<<48 | p.nextFlow // apart from the kernel's channel flow ids, and exact in a float64
	p.emit(&chromeEvent{Name: name, Cat: cat, Ph: "s", Ts: from, Pid: perfettoPid, Tid: fromTid, ID: id, Bp: "e"})
	p.emit(&chromeEvent{Name: name, Cat: cat, Ph: "f", Ts: to, Pid: perfettoPid, Tid: toTid, ID: id, Bp: "e"})
}

// endWait draws the blocking call key as a slice on its caller's thread, from its start to e.
func (p *PerfettoWriter) endWait(key string, e *trace.Event) {
	w, ok := p.waits[key]
	if !ok {
		return
	}
	delete(p.waits, key)
	if e.At <= w.ts {
		return
	}
	args := p.args[:0].setString("pod", e.Pod)
	if e.Container != "" {
		args = args.setString("container", e.Container)
	}
	p.args = args
	p.emit(&chromeEvent{Name: w.name, Cat: "wait", Ph: "X", Ts: w.ts, Dur: e.At - w.ts, HasDur: true, Pid: perfettoPid, Tid: w.tid, Args: args})
}

// eventArgs carries an event's details into the slice's arguments: its pod, container,
// flow and ready channels, then its attributes (which replace a detail of the same name).
// They are built in p.args, which each emit's arguments reuse: an emit is written before the
// next one's arguments are built.
func (p *PerfettoWriter) eventArgs(e *trace.Event) perfArgs {
	args := p.args[:0]
	if e.Pod != "" {
		args = args.setString("pod", e.Pod)
	}
	if e.Container != "" {
		args = args.setString("container", e.Container)
	}
	if e.Flow != 0 {
		args = args.set(perfArg{key: "flow", kind: argUint, num: int64(e.Flow)})
	}
	if len(e.Ready) > 0 {
		args = args.set(perfArg{key: "ready", kind: argStrings, list: e.Ready})
	}
	for _, a := range e.Attrs {
		args = args.setString(a.Key, a.Value)
	}
	p.args = args
	return args
}

// Finish closes the JSON document, flushes, and returns the first error met.
func (p *PerfettoWriter) Finish() error {
	if p.err != nil {
		return p.err
	}
	end := "]}\n"
	if note := p.cap.note(); note != "" {
		p.emit(&chromeEvent{Name: note, Cat: "truncated", Ph: "i", Scope: "g", Ts: p.cap.firstDropped, Pid: perfettoPid})
		meta, err := json.Marshal(map[string]string{"truncated": note})
		if err != nil {
			return fmt.Errorf("writing perfetto trace: %w", err)
		}
		end = "],\"metadata\":" + string(meta) + "}\n"
	}
	if p.err != nil {
		return p.err
	}
	if _, err := p.w.WriteString(end); err != nil {
		return fmt.Errorf("writing perfetto trace: %w", err)
	}
	if err := p.w.Flush(); err != nil {
		return fmt.Errorf("writing perfetto trace: %w", err)
	}
	return nil
}
