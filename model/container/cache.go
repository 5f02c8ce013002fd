package container

import (
	"maps"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"nodesim/sim"
)

// Cache is the kubelet's pod cache (upstream pkg/kubelet/container/cache.go): the latest
// runtime status of each pod, written by PLEG, with the time of the observation. Pod workers
// wait in GetNewerThan for an observation made after their previous sync, so that each sync
// sees the effects of the last one.
type Cache struct {
	s *sim.Sim
	// pods holds a pointer to each pod's entry, so that Set and MarkObserved update an
	// entry with one lookup, and a pod worker's CacheHandle reaches its pod's entry with
	// none (see CacheHandle).
	pods map[types.UID]*cacheEntry
	// timestamp is the global freshness mark, valid once hasTimestamp says the first relist
	// completed (a value, not a pointer: UpdateTime runs at every relist).
	timestamp    time.Time
	hasTimestamp bool
	subs         map[types.UID][]*subscriber
	// notifyUIDs is UpdateTime's scratch list of the pods with waiters.
	notifyUIDs []types.UID
}

type cacheEntry struct {
	status   *PodStatus
	err      error
	modified time.Time
	observed time.Time // set by single-pod (on-demand) relists
	// deleted says Delete dropped the entry from pods: a handle that still points at it
	// looks the pod up again (a later Set makes a new entry).
	deleted bool
}

// CacheHandle is a reader's way to one pod's entry, for GetNewerThanHandle: it remembers
// the entry it found, so that a pod worker's every sync does not hash the pod's UID to
// find it again. It is safe to keep because an entry is only ever updated in place while
// it is in the map, and Delete marks the entry it drops, so a handle never answers from
// an entry the cache no longer holds: it looks the pod up again instead.
type CacheHandle struct {
	uid types.UID
	e   *cacheEntry // the entry last found; nil when there was none
}

// NewCacheHandle returns a handle for pod uid's entry (found at its first use).
func NewCacheHandle(uid types.UID) CacheHandle { return CacheHandle{uid: uid} }

// entry returns the pod's entry, nil if the cache has none.
func (c *Cache) entry(h *CacheHandle) *cacheEntry {
	if h.e == nil || h.e.deleted {
		h.e = c.pods[h.uid]
	}
	return h.e
}

type subscriber struct {
	minTime time.Time
	waiter  sim.Process
	cb      func(*PodStatus, error)
}

// NewCache returns an empty cache.
func NewCache(s *sim.Sim) *Cache {
	return &Cache{s: s, pods: map[types.UID]*cacheEntry{}, subs: map[types.UID][]*subscriber{}}
}

// Get returns the pod's status, or an empty status (the runtime has nothing for it).
func (c *Cache) Get(uid types.UID) (*PodStatus, error) {
	if e := c.pods[uid]; e != nil {
		return e.status, e.err
	}
	return &PodStatus{ID: uid}, nil
}

// Set stores a status observed at t and wakes the pod's waiters it satisfies.
func (c *Cache) Set(uid types.UID, status *PodStatus, err error, t time.Time) {
	e := c.pods[uid]
	if e == nil {
		e = &cacheEntry{}
		c.pods[uid] = e
	}
	e.status, e.err, e.modified = status, err, t
	c.notify(uid)
}

// MarkObserved records that a single-pod relist observed the pod at t.
func (c *Cache) MarkObserved(uid types.UID, t time.Time) {
	if e := c.pods[uid]; e != nil && t.After(e.observed) {
		e.observed = t
	}
	c.notify(uid)
}

// Delete forgets the pod (it vanished from the runtime).
func (c *Cache) Delete(uid types.UID) {
	if e := c.pods[uid]; e != nil {
		// Handles holding it find out (deleted), and stop keeping its status alive.
		*e = cacheEntry{deleted: true}
		delete(c.pods, uid)
	}
	c.notify(uid)
}

// UpdateTime sets the global freshness mark after a full relist and wakes every waiter it
// satisfies.
func (c *Cache) UpdateTime(t time.Time) {
	c.timestamp, c.hasTimestamp = t, true
	if len(c.subs) == 0 {
		return // the usual relist: no worker waits
	}
	// In UID order, so that the woken workers resume in the same order every run. The
	// slice is reused from relist to relist: notify only schedules the waiters' callbacks,
	// it never calls back into the cache, so nothing else uses it while it is walked.
	uids := slices.AppendSeq(c.notifyUIDs[:0], maps.Keys(c.subs))
	slices.Sort(uids)
	for _, uid := range uids {
		c.notify(uid)
	}
	clear(uids) // drop the UIDs' strings until the next relist
	c.notifyUIDs = uids[:0]
}

// newerThan returns the entry if an observation after minTime exists.
func (c *Cache) newerThan(uid types.UID, minTime time.Time) (*PodStatus, error, bool) {
	return c.entryNewerThan(c.pods[uid], uid, minTime)
}

// entryNewerThan is newerThan for the pod's entry e (nil if the cache has none).
func (c *Cache) entryNewerThan(e *cacheEntry, uid types.UID, minTime time.Time) (*PodStatus, error, bool) {
	global := c.hasTimestamp && c.timestamp.After(minTime)
	if e == nil {
		if global {
			return &PodStatus{ID: uid}, nil, true
		}
		return nil, nil, false
	}
	// The global mark first: a relist every second moves it past most waits, while a
	// steady pod's own times stay where its last change left them.
	if global || e.modified.After(minTime) || e.observed.After(minTime) {
		return e.status, e.err, true
	}
	return nil, nil, false
}

// GetNewerThan calls cb with the pod's status as soon as the cache holds an observation
// made after minTime: at once if it already does, otherwise when a later Set, MarkObserved
// or UpdateTime brings one. The callback then runs on the waiting process's track.
func (c *Cache) GetNewerThan(uid types.UID, minTime time.Time, cb func(*PodStatus, error)) {
	if st, err, ok := c.newerThan(uid, minTime); ok {
		cb(st, err)
		return
	}
	c.subscribe(uid, minTime, cb)
}

// GetNewerThanHandle is GetNewerThan for the pod of handle h.
func (c *Cache) GetNewerThanHandle(h *CacheHandle, minTime time.Time, cb func(*PodStatus, error)) {
	if st, err, ok := c.entryNewerThan(c.entry(h), h.uid, minTime); ok {
		cb(st, err)
		return
	}
	c.subscribe(h.uid, minTime, cb)
}

func (c *Cache) subscribe(uid types.UID, minTime time.Time, cb func(*PodStatus, error)) {
	c.subs[uid] = append(c.subs[uid], &subscriber{minTime: minTime, waiter: c.s.Self(), cb: cb})
}

// Waiting reports whether a worker is waiting for a newer status of the pod.
func (c *Cache) Waiting(uid types.UID) bool { return len(c.subs[uid]) > 0 }

func (c *Cache) notify(uid types.UID) {
	subs := c.subs[uid]
	if len(subs) == 0 {
		return
	}
	var keep []*subscriber
	for _, sub := range subs {
		st, err, ok := c.newerThan(uid, sub.minTime)
		if !ok {
			keep = append(keep, sub)
			continue
		}
		sub := sub
		sub.waiter.Resume(0, func() { sub.cb(st, err) })
	}
	if len(keep) == 0 {
		delete(c.subs, uid)
	} else {
		c.subs[uid] = keep
	}
}
