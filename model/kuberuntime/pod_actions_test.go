package kuberuntime

import (
	"errors"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"nodesim/model/container"
	"nodesim/model/flowcontrol"
	"nodesim/model/prober/results"
	"nodesim/sim"
)

// probeTable is a fake ProbeResults: container ID → result; a missing ID means the probe has
// not produced a result yet.
type probeTable map[string]results.Result

func (p probeTable) Get(id string) (results.Result, bool) {
	r, ok := p[id]
	return r, ok
}

// wantActions is the part of PodActions the tables compare. Nil and empty slices are the
// same; kill is the set of container IDs in ContainersToKill.
type wantActions struct {
	killPod       bool
	createSandbox bool
	sandboxID     string
	attempt       uint32
	initStart     []int
	start         []int
	kill          []string
}

// actionCase is one row of the computePodActions tables.
type actionCase struct {
	name     string
	pod      func(*corev1.Pod)
	status   func(*corev1.Pod, *container.PodStatus)
	liveness probeTable // merged over the base results
	startup  probeTable
	// noStartup and noLiveness remove base results: the probe has not reported yet.
	noStartup, noLiveness []string
	want                  wantActions
	// killMessages, if set, are substrings expected in the kill message of each ID.
	killMessages map[string]string
	killReasons  map[string]KillReason
}

const baseSandbox = "sandbox-0"

func containerSpec(name, image string) corev1.Container {
	return corev1.Container{Name: name, Image: image}
}

func running(id string, c *corev1.Container) *container.Status {
	return &container.Status{ID: id, Name: c.Name, State: container.StateRunning, Image: c.Image, Hash: container.HashContainer(c)}
}

// regularPod is a pod with three regular containers, each running, in one ready sandbox
// that has an IP.
func regularPod() (*corev1.Pod, *container.PodStatus) {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", UID: "uid-web"},
		Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyAlways,
			Containers: []corev1.Container{
				containerSpec("front", "nginx:1.27"),
				containerSpec("api", "shop/api:2"),
				containerSpec("cache", "redis:7"),
			},
		},
	}
	st := &container.PodStatus{
		ID: pod.UID, Name: pod.Name, Namespace: pod.Namespace,
		SandboxStatuses: []*container.SandboxStatus{{ID: baseSandbox, State: container.SandboxReady, Attempt: 0, IP: "10.244.0.7"}},
	}
	for i, id := range []string{"ctr-front", "ctr-api", "ctr-cache"} {
		st.ContainerStatuses = append(st.ContainerStatuses, running(id, &pod.Spec.Containers[i]))
	}
	return pod, st
}

// withInitPod adds three ordinary init containers to regularPod; their statuses (all
// exited with code 0) replace the regular containers' ones: initialization just finished.
func withInitPod() (*corev1.Pod, *container.PodStatus) {
	pod, st := regularPod()
	pod.Spec.InitContainers = []corev1.Container{
		containerSpec("migrate", "shop/migrate:1"),
		containerSpec("seed", "shop/seed:1"),
		containerSpec("warm", "shop/warm:1"),
	}
	st.ContainerStatuses = nil
	for i, id := range []string{"ictr-migrate", "ictr-seed", "ictr-warm"} {
		s := running(id, &pod.Spec.InitContainers[i])
		s.State = container.StateExited
		st.ContainerStatuses = append(st.ContainerStatuses, s)
	}
	return pod, st
}

// sidecarPod adds three sidecars (restartable init containers) to regularPod: the second
// and third have liveness and startup probes. All three run; the regular containers have
// no status yet. sidecarProbes are the matching probe results (everything succeeded).
func sidecarPod() (*corev1.Pod, *container.PodStatus) {
	pod, st := regularPod()
	always := corev1.ContainerRestartPolicyAlways
	probe := &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"true"}}}}
	pod.Spec.InitContainers = []corev1.Container{
		{Name: "log-shipper", Image: "fluent-bit:3", RestartPolicy: &always},
		{Name: "mesh-proxy", Image: "envoy:1.31", RestartPolicy: &always, LivenessProbe: probe, StartupProbe: probe},
		{Name: "metrics", Image: "exporter:0.9", RestartPolicy: &always, LivenessProbe: probe, StartupProbe: probe},
	}
	st.ContainerStatuses = nil
	for i, id := range []string{"sc-log", "sc-mesh", "sc-metrics"} {
		st.ContainerStatuses = append(st.ContainerStatuses, running(id, &pod.Spec.InitContainers[i]))
	}
	return pod, st
}

func sidecarProbes() (probeTable, probeTable) {
	return probeTable{"sc-mesh": results.Success, "sc-metrics": results.Success},
		probeTable{"sc-mesh": results.Success, "sc-metrics": results.Success}
}

func statusOf(st *container.PodStatus, name string) *container.Status {
	for _, s := range st.ContainerStatuses {
		if s.Name == name {
			return s
		}
	}
	panic("no status for " + name)
}

func exited(st *container.PodStatus, name string, code int) {
	s := statusOf(st, name)
	s.State, s.ExitCode = container.StateExited, code
}

func dropStatus(st *container.PodStatus, names ...string) {
	st.ContainerStatuses = slices.DeleteFunc(st.ContainerStatuses, func(s *container.Status) bool {
		return slices.Contains(names, s.Name)
	})
}

// appendRegular adds a status for each regular container in the given state and code.
func appendRegular(pod *corev1.Pod, st *container.PodStatus, state container.State, code int) {
	for i := range pod.Spec.Containers {
		s := running("ctr-"+pod.Spec.Containers[i].Name, &pod.Spec.Containers[i])
		s.State, s.ExitCode = state, code
		st.ContainerStatuses = append(st.ContainerStatuses, s)
	}
}

func sandboxDown(st *container.PodStatus, attempt uint32) {
	st.SandboxStatuses[0].State = container.SandboxNotReady
	st.SandboxStatuses[0].Attempt = attempt
}

func policy(p corev1.RestartPolicy) func(*corev1.Pod) {
	return func(pod *corev1.Pod) { pod.Spec.RestartPolicy = p }
}

func intsEqual(a, b []int) bool { return len(a) == 0 && len(b) == 0 || slices.Equal(a, b) }

func runActionCases(t *testing.T, base func() (*corev1.Pod, *container.PodStatus), baseProbes func() (probeTable, probeTable), cases []actionCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pod, st := base()
			liveness, startup := probeTable{}, probeTable{}
			if baseProbes != nil {
				liveness, startup = baseProbes()
			}
			for k, v := range tc.liveness {
				liveness[k] = v
			}
			for k, v := range tc.startup {
				startup[k] = v
			}
			for _, id := range tc.noStartup {
				delete(startup, id)
			}
			for _, id := range tc.noLiveness {
				delete(liveness, id)
			}
			if tc.pod != nil {
				tc.pod(pod)
			}
			if tc.status != nil {
				tc.status(pod, st)
			}
			m := &Manager{livenessManager: liveness, startupManager: startup}
			got := m.computePodActions(pod, st, false)

			var kills []string
			for id, k := range got.ContainersToKill {
				kills = append(kills, id)
				if k.ID != id {
					t.Errorf("ContainersToKill[%q].ID = %q", id, k.ID)
				}
				if k.Container == nil || k.Container.Name != k.Name {
					t.Errorf("ContainersToKill[%q] names %q but carries spec %v", id, k.Name, k.Container)
				}
			}
			sort.Strings(kills)
			want := tc.want
			wantKills := slices.Clone(want.kill)
			sort.Strings(wantKills)

			if got.KillPod != want.killPod || got.CreateSandbox != want.createSandbox || got.Attempt != want.attempt || got.SandboxID != want.sandboxID {
				t.Errorf("killPod/createSandbox/attempt/sandboxID = %v/%v/%d/%q, want %v/%v/%d/%q",
					got.KillPod, got.CreateSandbox, got.Attempt, got.SandboxID, want.killPod, want.createSandbox, want.attempt, want.sandboxID)
			}
			if !intsEqual(got.InitContainersToStart, want.initStart) {
				t.Errorf("InitContainersToStart = %v, want %v", got.InitContainersToStart, want.initStart)
			}
			if !intsEqual(got.ContainersToStart, want.start) {
				t.Errorf("ContainersToStart = %v, want %v", got.ContainersToStart, want.start)
			}
			if !slices.Equal(kills, wantKills) {
				t.Errorf("ContainersToKill = %v, want %v", kills, wantKills)
			}
			for id, sub := range tc.killMessages {
				if msg := got.ContainersToKill[id].Message; !strings.Contains(msg, sub) {
					t.Errorf("kill message for %s = %q, want it to contain %q", id, msg, sub)
				}
			}
			for id, reason := range tc.killReasons {
				if r := got.ContainersToKill[id].Reason; r != reason {
					t.Errorf("kill reason for %s = %q, want %q", id, r, reason)
				}
			}
		})
	}
}

func TestComputePodActions(t *testing.T) {
	keep := wantActions{sandboxID: baseSandbox}
	cases := []actionCase{
		{name: "all running in a healthy sandbox: nothing to do", want: keep},
		{
			name: "brand-new pod: create the first sandbox and start every container",
			status: func(_ *corev1.Pod, st *container.PodStatus) {
				st.SandboxStatuses, st.ContainerStatuses = nil, nil
			},
			want: wantActions{killPod: true, createSandbox: true, attempt: 0, start: []int{0, 1, 2}},
		},
		{
			name:   "sandbox no longer ready under Always: kill it, make attempt 1, start everything",
			status: func(_ *corev1.Pod, st *container.PodStatus) { sandboxDown(st, 0) },
			want:   wantActions{killPod: true, createSandbox: true, sandboxID: baseSandbox, attempt: 1, start: []int{0, 1, 2}},
		},
		{
			name: "sandbox dead under OnFailure: the container that succeeded is not started again",
			pod:  policy(corev1.RestartPolicyOnFailure),
			status: func(_ *corev1.Pod, st *container.PodStatus) {
				sandboxDown(st, 0)
				exited(st, "api", 0)
			},
			want: wantActions{killPod: true, createSandbox: true, sandboxID: baseSandbox, attempt: 1, start: []int{0, 2}},
		},
		{
			name: "sandbox dead under Never after containers ran: kill only, no new sandbox",
			pod:  policy(corev1.RestartPolicyNever),
			status: func(_ *corev1.Pod, st *container.PodStatus) {
				sandboxDown(st, 1)
				for _, n := range []string{"front", "api", "cache"} {
					exited(st, n, 0)
				}
			},
			want: wantActions{killPod: true, sandboxID: baseSandbox, attempt: 2},
		},
		{
			name: "sandbox dead under OnFailure with every container succeeded: kill only",
			pod:  policy(corev1.RestartPolicyOnFailure),
			status: func(_ *corev1.Pod, st *container.PodStatus) {
				sandboxDown(st, 1)
				for _, n := range []string{"front", "api", "cache"} {
					exited(st, n, 0)
				}
			},
			want: wantActions{killPod: true, sandboxID: baseSandbox, attempt: 2},
		},
		{
			name: "sandbox dead under Never but no container ever existed: a new sandbox is made",
			pod:  policy(corev1.RestartPolicyNever),
			status: func(_ *corev1.Pod, st *container.PodStatus) {
				sandboxDown(st, 2)
				st.ContainerStatuses = nil
			},
			want: wantActions{killPod: true, createSandbox: true, sandboxID: baseSandbox, attempt: 3, start: []int{0, 1, 2}},
		},
		{
			name:   "ready sandbox without an IP: replaced",
			status: func(_ *corev1.Pod, st *container.PodStatus) { st.SandboxStatuses[0].IP = "" },
			want:   wantActions{killPod: true, createSandbox: true, sandboxID: baseSandbox, attempt: 1, start: []int{0, 1, 2}},
		},
		{
			name:   "host-network pod needs no sandbox IP",
			pod:    func(p *corev1.Pod) { p.Spec.HostNetwork = true },
			status: func(_ *corev1.Pod, st *container.PodStatus) { st.SandboxStatuses[0].IP = "" },
			want:   keep,
		},
		{
			name: "two ready sandboxes: replaced, attempt after the newest",
			status: func(_ *corev1.Pod, st *container.PodStatus) {
				newer := &container.SandboxStatus{ID: "sandbox-4", State: container.SandboxReady, Attempt: 4, IP: "10.244.0.9"}
				st.SandboxStatuses = append([]*container.SandboxStatus{newer}, st.SandboxStatuses...)
			},
			want: wantActions{killPod: true, createSandbox: true, sandboxID: "sandbox-4", attempt: 5, start: []int{0, 1, 2}},
		},
		{
			name: "Always restarts exited containers whatever their exit code",
			status: func(_ *corev1.Pod, st *container.PodStatus) {
				exited(st, "front", 0)
				exited(st, "api", 2)
			},
			want: wantActions{sandboxID: baseSandbox, start: []int{0, 1}},
		},
		{
			name: "OnFailure restarts only the container that failed",
			pod:  policy(corev1.RestartPolicyOnFailure),
			status: func(_ *corev1.Pod, st *container.PodStatus) {
				exited(st, "front", 0)
				exited(st, "api", 2)
			},
			want: wantActions{sandboxID: baseSandbox, start: []int{1}},
		},
		{
			name: "OnFailure starts a container stuck in created",
			pod:  policy(corev1.RestartPolicyOnFailure),
			status: func(_ *corev1.Pod, st *container.PodStatus) {
				exited(st, "front", 0)
				statusOf(st, "api").State = container.StateCreated
			},
			want: wantActions{sandboxID: baseSandbox, start: []int{1}},
		},
		{
			name: "Never leaves exited containers alone while another still runs",
			pod:  policy(corev1.RestartPolicyNever),
			status: func(_ *corev1.Pod, st *container.PodStatus) {
				exited(st, "front", 0)
				exited(st, "api", 2)
			},
			want: keep,
		},
		{
			name:         "changed spec hash: kill and start again",
			status:       func(_ *corev1.Pod, st *container.PodStatus) { statusOf(st, "api").Hash = 12345 },
			want:         wantActions{sandboxID: baseSandbox, start: []int{1}, kill: []string{"ctr-api"}},
			killMessages: map[string]string{"ctr-api": "Container api definition changed, will be restarted"},
			killReasons:  map[string]KillReason{"ctr-api": ReasonSpecChanged},
		},
		{
			name:   "changed spec hash restarts even under Never",
			pod:    policy(corev1.RestartPolicyNever),
			status: func(_ *corev1.Pod, st *container.PodStatus) { statusOf(st, "api").Hash = 12345 },
			want:   wantActions{sandboxID: baseSandbox, start: []int{1}, kill: []string{"ctr-api"}},
		},
		{
			name:         "liveness failure under Always: kill, and say it will be restarted",
			liveness:     probeTable{"ctr-api": results.Failure},
			want:         wantActions{sandboxID: baseSandbox, start: []int{1}, kill: []string{"ctr-api"}},
			killMessages: map[string]string{"ctr-api": "Container api failed liveness probe, will be restarted"},
			killReasons:  map[string]KillReason{"ctr-api": ReasonLivenessProbe},
		},
		{
			name:        "liveness failure under Never: kill only; the other two keep the pod",
			pod:         policy(corev1.RestartPolicyNever),
			liveness:    probeTable{"ctr-api": results.Failure},
			want:        wantActions{sandboxID: baseSandbox, kill: []string{"ctr-api"}},
			killReasons: map[string]KillReason{"ctr-api": ReasonLivenessProbe},
		},
		{
			name:     "liveness success or not yet probed: keep",
			liveness: probeTable{"ctr-front": results.Success, "ctr-api": results.Unknown},
			want:     keep,
		},
		{
			name:         "startup failure under OnFailure: kill and restart",
			pod:          policy(corev1.RestartPolicyOnFailure),
			startup:      probeTable{"ctr-cache": results.Failure},
			want:         wantActions{sandboxID: baseSandbox, start: []int{2}, kill: []string{"ctr-cache"}},
			killMessages: map[string]string{"ctr-cache": "Container cache failed startup probe, will be restarted"},
			killReasons:  map[string]KillReason{"ctr-cache": ReasonStartupProbe},
		},
		{
			name:         "unknown state: kill before starting it again, even under Never",
			pod:          policy(corev1.RestartPolicyNever),
			status:       func(_ *corev1.Pod, st *container.PodStatus) { statusOf(st, "api").State = container.StateUnknown },
			want:         wantActions{sandboxID: baseSandbox, start: []int{1}, kill: []string{"ctr-api"}},
			killMessages: map[string]string{"ctr-api": "try killing it before restart"},
			killReasons:  map[string]KillReason{"ctr-api": ReasonUnknown},
		},
		{
			name: "every container succeeded under OnFailure: kill the pod",
			pod:  policy(corev1.RestartPolicyOnFailure),
			status: func(_ *corev1.Pod, st *container.PodStatus) {
				for _, n := range []string{"front", "api", "cache"} {
					exited(st, n, 0)
				}
			},
			want: wantActions{killPod: true, sandboxID: baseSandbox},
		},
		{
			name: "every container exited under Never: kill the pod",
			pod:  policy(corev1.RestartPolicyNever),
			status: func(_ *corev1.Pod, st *container.PodStatus) {
				exited(st, "front", 0)
				exited(st, "api", 1)
				exited(st, "cache", 137)
			},
			want: wantActions{killPod: true, sandboxID: baseSandbox},
		},
		{
			name: "last running container failing liveness under Never: kill it and the pod",
			pod:  policy(corev1.RestartPolicyNever),
			status: func(_ *corev1.Pod, st *container.PodStatus) {
				exited(st, "front", 0)
				exited(st, "cache", 0)
			},
			liveness: probeTable{"ctr-api": results.Failure},
			want:     wantActions{killPod: true, sandboxID: baseSandbox, kill: []string{"ctr-api"}},
		},
		{
			name: "a pod being deleted starts nothing",
			pod: func(p *corev1.Pod) {
				now := metav1.NewTime(sim.Epoch)
				p.DeletionTimestamp = &now
			},
			status: func(_ *corev1.Pod, st *container.PodStatus) { exited(st, "api", 1) },
			want:   keep,
		},
	}
	runActionCases(t, regularPod, nil, cases)
}

func TestComputePodActionsWithInitContainers(t *testing.T) {
	cases := []actionCase{
		{
			name: "initialization finished: start the regular containers",
			want: wantActions{sandboxID: baseSandbox, start: []int{0, 1, 2}},
		},
		{
			name:   "nothing started yet: start the first init container only",
			status: func(_ *corev1.Pod, st *container.PodStatus) { st.ContainerStatuses = nil },
			want:   wantActions{sandboxID: baseSandbox, initStart: []int{0}},
		},
		{
			name:   "first init container succeeded: start the second",
			status: func(_ *corev1.Pod, st *container.PodStatus) { dropStatus(st, "seed", "warm") },
			want:   wantActions{sandboxID: baseSandbox, initStart: []int{1}},
		},
		{
			name:   "second init container succeeded: start the third",
			status: func(_ *corev1.Pod, st *container.PodStatus) { dropStatus(st, "warm") },
			want:   wantActions{sandboxID: baseSandbox, initStart: []int{2}},
		},
		{
			name:   "an init container is running: wait",
			status: func(_ *corev1.Pod, st *container.PodStatus) { statusOf(st, "warm").State = container.StateRunning },
			want:   wantActions{sandboxID: baseSandbox},
		},
		{
			name: "only the last init container's status is left and it runs: wait, earlier ones are not rerun",
			status: func(_ *corev1.Pod, st *container.PodStatus) {
				statusOf(st, "warm").State = container.StateRunning
				dropStatus(st, "migrate", "seed")
			},
			want: wantActions{sandboxID: baseSandbox},
		},
		{
			name:   "an init container stuck in created: start it again",
			status: func(_ *corev1.Pod, st *container.PodStatus) { statusOf(st, "warm").State = container.StateCreated },
			want:   wantActions{sandboxID: baseSandbox, initStart: []int{2}},
		},
		{
			name:   "an init container failed under Always: restart it",
			status: func(_ *corev1.Pod, st *container.PodStatus) { exited(st, "warm", 137) },
			want:   wantActions{sandboxID: baseSandbox, initStart: []int{2}},
		},
		{
			name:   "an init container failed under OnFailure: restart it",
			pod:    policy(corev1.RestartPolicyOnFailure),
			status: func(_ *corev1.Pod, st *container.PodStatus) { exited(st, "warm", 1) },
			want:   wantActions{sandboxID: baseSandbox, initStart: []int{2}},
		},
		{
			name: "an init container failed under Never: the pod is killed",
			pod:  policy(corev1.RestartPolicyNever),
			status: func(_ *corev1.Pod, st *container.PodStatus) {
				dropStatus(st, "warm")
				exited(st, "seed", 1)
			},
			want: wantActions{killPod: true, sandboxID: baseSandbox},
		},
		{
			name:        "an init container in unknown state under Always: kill it and run it again",
			status:      func(_ *corev1.Pod, st *container.PodStatus) { statusOf(st, "warm").State = container.StateUnknown },
			want:        wantActions{sandboxID: baseSandbox, initStart: []int{2}, kill: []string{"ictr-warm"}},
			killReasons: map[string]KillReason{"ictr-warm": ReasonUnknown},
		},
		{
			name:   "an init container in unknown state under Never: the pod is killed",
			pod:    policy(corev1.RestartPolicyNever),
			status: func(_ *corev1.Pod, st *container.PodStatus) { statusOf(st, "warm").State = container.StateUnknown },
			want:   wantActions{killPod: true, sandboxID: baseSandbox},
		},
		{
			name:   "new sandbox needed: everything starts over from init container 0",
			status: func(_ *corev1.Pod, st *container.PodStatus) { sandboxDown(st, 0) },
			want:   wantActions{killPod: true, createSandbox: true, sandboxID: baseSandbox, attempt: 1, initStart: []int{0}},
		},
		{
			name: "new sandbox needed under OnFailure after a failed init container: start over from 0",
			pod:  policy(corev1.RestartPolicyOnFailure),
			status: func(_ *corev1.Pod, st *container.PodStatus) {
				sandboxDown(st, 0)
				exited(st, "warm", 137)
			},
			want: wantActions{killPod: true, createSandbox: true, sandboxID: baseSandbox, attempt: 1, initStart: []int{0}},
		},
		{
			name:   "sandbox dead under Never after init containers ran: kill only",
			pod:    policy(corev1.RestartPolicyNever),
			status: func(_ *corev1.Pod, st *container.PodStatus) { sandboxDown(st, 0) },
			want:   wantActions{killPod: true, sandboxID: baseSandbox, attempt: 1},
		},
		{
			name: "sandbox dead under Never before anything ran: new sandbox, init container 0",
			pod:  policy(corev1.RestartPolicyNever),
			status: func(_ *corev1.Pod, st *container.PodStatus) {
				sandboxDown(st, 0)
				st.ContainerStatuses = nil
			},
			want: wantActions{killPod: true, createSandbox: true, sandboxID: baseSandbox, attempt: 1, initStart: []int{0}},
		},
		{
			name: "regular containers run and the init records were pruned: init containers are not rerun",
			status: func(pod *corev1.Pod, st *container.PodStatus) {
				st.ContainerStatuses = nil
				appendRegular(pod, st, container.StateRunning, 0)
			},
			want: wantActions{sandboxID: baseSandbox},
		},
	}
	runActionCases(t, withInitPod, nil, cases)
}

func TestComputePodActionsWithSidecars(t *testing.T) {
	cases := []actionCase{
		{
			name: "every sidecar started: start the regular containers",
			want: wantActions{sandboxID: baseSandbox, start: []int{0, 1, 2}},
		},
		{
			name:   "first sidecar running (no startup probe): start the next init container",
			status: func(_ *corev1.Pod, st *container.PodStatus) { dropStatus(st, "mesh-proxy", "metrics") },
			want:   wantActions{sandboxID: baseSandbox, initStart: []int{1}},
		},
		{
			name:      "sidecar whose startup probe has not run yet: wait",
			status:    func(_ *corev1.Pod, st *container.PodStatus) { dropStatus(st, "metrics") },
			noStartup: []string{"sc-mesh"},
			want:      wantActions{sandboxID: baseSandbox},
		},
		{
			name:   "sidecar with a startup probe still unknown: wait",
			status: func(_ *corev1.Pod, st *container.PodStatus) { dropStatus(st, "metrics") },
			startup: probeTable{
				"sc-mesh": results.Unknown,
			},
			want: wantActions{sandboxID: baseSandbox},
		},
		{
			name:       "sidecar started but its liveness probe has not reported: still start the next",
			status:     func(_ *corev1.Pod, st *container.PodStatus) { dropStatus(st, "metrics") },
			noLiveness: []string{"sc-mesh"},
			want:       wantActions{sandboxID: baseSandbox, initStart: []int{2}},
		},
		{
			name:     "sidecar started, liveness in progress: still start the next",
			status:   func(_ *corev1.Pod, st *container.PodStatus) { dropStatus(st, "metrics") },
			liveness: probeTable{"sc-mesh": results.Unknown},
			want:     wantActions{sandboxID: baseSandbox, initStart: []int{2}},
		},
		{
			name:   "sidecar startup succeeded: start the next",
			status: func(_ *corev1.Pod, st *container.PodStatus) { dropStatus(st, "metrics") },
			want:   wantActions{sandboxID: baseSandbox, initStart: []int{2}},
		},
		{
			name: "first and last sidecars exited: restart both, in spec order",
			status: func(_ *corev1.Pod, st *container.PodStatus) {
				exited(st, "log-shipper", 0)
				exited(st, "metrics", 0)
			},
			want: wantActions{sandboxID: baseSandbox, initStart: []int{0, 2}},
		},
		{
			name:   "first sidecar exited after initialization: restart it with the regular containers",
			status: func(_ *corev1.Pod, st *container.PodStatus) { exited(st, "log-shipper", 1) },
			want:   wantActions{sandboxID: baseSandbox, initStart: []int{0}, start: []int{0, 1, 2}},
		},
		{
			name:         "sidecar failing liveness: kill and restart it; initialization still counts",
			liveness:     probeTable{"sc-metrics": results.Failure},
			want:         wantActions{sandboxID: baseSandbox, initStart: []int{2}, start: []int{0, 1, 2}, kill: []string{"sc-metrics"}},
			killMessages: map[string]string{"sc-metrics": "failed liveness probe"},
			killReasons:  map[string]KillReason{"sc-metrics": ReasonLivenessProbe},
		},
		{
			name:        "sidecar failing its startup probe: kill and restart it, nothing else yet",
			startup:     probeTable{"sc-metrics": results.Failure},
			want:        wantActions{sandboxID: baseSandbox, initStart: []int{2}, kill: []string{"sc-metrics"}},
			killReasons: map[string]KillReason{"sc-metrics": ReasonStartupProbe},
		},
		{
			name:        "sidecar spec changed: kill and restart it",
			pod:         func(p *corev1.Pod) { p.Spec.InitContainers[2].Image = "exporter:1.0" },
			want:        wantActions{sandboxID: baseSandbox, initStart: []int{2}, start: []int{0, 1, 2}, kill: []string{"sc-metrics"}},
			killReasons: map[string]KillReason{"sc-metrics": ReasonSpecChanged},
		},
		{
			name:   "sidecar stuck in created: start it",
			status: func(_ *corev1.Pod, st *container.PodStatus) { statusOf(st, "metrics").State = container.StateCreated },
			want:   wantActions{sandboxID: baseSandbox, initStart: []int{2}},
		},
		{
			name:   "sidecar failed under Never: sidecars restart whatever the pod policy",
			pod:    policy(corev1.RestartPolicyNever),
			status: func(_ *corev1.Pod, st *container.PodStatus) { exited(st, "metrics", 137) },
			want:   wantActions{sandboxID: baseSandbox, initStart: []int{2}},
		},
		{
			name:   "sidecar in unknown state under Never: kill and restart it",
			pod:    policy(corev1.RestartPolicyNever),
			status: func(_ *corev1.Pod, st *container.PodStatus) { statusOf(st, "metrics").State = container.StateUnknown },
			want:   wantActions{sandboxID: baseSandbox, initStart: []int{2}, kill: []string{"sc-metrics"}},
		},
		{
			name: "sidecar failed under Never while regular containers run: restart it",
			pod:  policy(corev1.RestartPolicyNever),
			status: func(pod *corev1.Pod, st *container.PodStatus) {
				exited(st, "metrics", 137)
				appendRegular(pod, st, container.StateRunning, 0)
			},
			want: wantActions{sandboxID: baseSandbox, initStart: []int{2}},
		},
		{
			name: "every regular container succeeded under OnFailure: kill the pod, restart no sidecar",
			pod:  policy(corev1.RestartPolicyOnFailure),
			status: func(pod *corev1.Pod, st *container.PodStatus) {
				exited(st, "log-shipper", 1) // would be restarted if the pod lived on
				appendRegular(pod, st, container.StateExited, 0)
			},
			want: wantActions{killPod: true, sandboxID: baseSandbox},
		},
		{
			name: "every regular container succeeded under Never: kill the pod",
			pod:  policy(corev1.RestartPolicyNever),
			status: func(pod *corev1.Pod, st *container.PodStatus) {
				appendRegular(pod, st, container.StateExited, 0)
			},
			want: wantActions{killPod: true, sandboxID: baseSandbox},
		},
		{
			name:   "earlier sidecars' records lost while the last one runs: restart them and the regular containers",
			status: func(_ *corev1.Pod, st *container.PodStatus) { dropStatus(st, "log-shipper", "mesh-proxy") },
			want:   wantActions{sandboxID: baseSandbox, initStart: []int{0, 1}, start: []int{0, 1, 2}},
		},
		{
			name: "new sandbox needed after a sidecar failed: start over from init container 0",
			status: func(_ *corev1.Pod, st *container.PodStatus) {
				sandboxDown(st, 0)
				exited(st, "metrics", 137)
			},
			want: wantActions{killPod: true, createSandbox: true, sandboxID: baseSandbox, attempt: 1, initStart: []int{0}},
		},
		{
			name: "sandbox dead under Never after a sidecar failed: kill only",
			pod:  policy(corev1.RestartPolicyNever),
			status: func(_ *corev1.Pod, st *container.PodStatus) {
				sandboxDown(st, 0)
				exited(st, "metrics", 137)
			},
			want: wantActions{killPod: true, sandboxID: baseSandbox, attempt: 1},
		},
	}
	runActionCases(t, sidecarPod, sidecarProbes, cases)
}

// A container's crash-loop back-off, driven through doBackOff as SyncPod would.
func TestDoBackOff(t *testing.T) {
	s := sim.New(1, nil)
	m := &Manager{s: s}
	backOff := flowcontrol.NewBackOff(10*time.Second, 300*time.Second).WithResetAfter(600 * time.Second)
	pod, st := regularPod()
	c := &pod.Spec.Containers[1]
	key := GetStableKey(pod, c)

	// First start: the container has never exited, so nothing is recorded.
	if in, _, err := m.doBackOff(pod, c, st, backOff); in || err != nil {
		t.Fatalf("first start held back: %v %v", in, err)
	}
	if got := backOff.Get(key); got != 0 {
		t.Fatalf("first start recorded a back-off of %s", got)
	}

	crash := func() time.Time {
		s0 := statusOf(st, "api")
		s0.State, s0.ExitCode, s0.FinishedAt = container.StateExited, 1, s.Now()
		return s0.FinishedAt
	}

	// First crash: restarted at once; the entry starts at the initial 10s.
	s.Step(5 * time.Second)
	crash()
	if in, _, err := m.doBackOff(pod, c, st, backOff); in || err != nil {
		t.Fatalf("first crash held back: %v %v", in, err)
	}
	if got := backOff.Get(key); got != 10*time.Second {
		t.Fatalf("back-off after first crash = %s, want 10s", got)
	}

	// Second crash 2s later, checked 3s after it: inside the 10s window.
	s.Step(2 * time.Second)
	finished := crash()
	s.Step(3 * time.Second)
	in, msg, err := m.doBackOff(pod, c, st, backOff)
	if !in {
		t.Fatal("crash inside the window was not held back")
	}
	if !errors.Is(err, ErrCrashLoopBackOff) {
		t.Fatalf("error %v is not a CrashLoopBackOff", err)
	}
	var be *BackoffError
	if !errors.As(err, &be) {
		t.Fatalf("error %T is not a BackoffError", err)
	}
	if want := finished.Add(10 * time.Second); !be.BackoffExpiry().Equal(want) {
		t.Errorf("expiry %s, want finishedAt+10s = %s", be.BackoffExpiry().Sub(sim.Epoch), want.Sub(sim.Epoch))
	}
	if !strings.Contains(msg, "back-off 10s restarting failed container=api pod=web_shop(uid-web)") {
		t.Errorf("message %q", msg)
	}
	if got := backOff.Get(key); got != 10*time.Second {
		t.Errorf("a held-back start changed the back-off to %s", got)
	}

	// At the window's end the start goes ahead and the back-off doubles.
	s.Step(7 * time.Second)
	if in, _, err := m.doBackOff(pod, c, st, backOff); in || err != nil {
		t.Fatalf("start after the window held back: %v %v", in, err)
	}
	if got := backOff.Get(key); got != 20*time.Second {
		t.Errorf("back-off after the second restart = %s, want 20s", got)
	}

	// A new spec (new image → new hash → new key) starts from scratch.
	pod.Spec.Containers[1].Image = "shop/api:3"
	crash()
	if in, _, _ := m.doBackOff(pod, c, st, backOff); in {
		t.Error("a changed spec inherited the old back-off")
	}
	if got := backOff.Get(GetStableKey(pod, c)); got != 10*time.Second {
		t.Errorf("fresh key back-off = %s, want 10s", got)
	}

	// Another container of the same pod is not affected.
	other := &pod.Spec.Containers[0]
	exited(st, "front", 1)
	statusOf(st, "front").FinishedAt = s.Now()
	if in, _, _ := m.doBackOff(pod, other, st, backOff); in {
		t.Error("a sibling container was held back by api's back-off")
	}
}
