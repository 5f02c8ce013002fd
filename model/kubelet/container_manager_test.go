package kubelet

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	kubeletconfigv1beta1 "k8s.io/kubelet/config/v1beta1"

	"nodesim/model/apiserver"
	"nodesim/model/cri"
	"nodesim/model/kubeletconfig"
	"nodesim/sim"
	"nodesim/trace"
)

// noGates enables no feature gate.
type noGates struct{}

func (noGates) Enabled(string) bool { return false }

// newTestKubelet runs a kubelet with one API pod, default/web, for a few seconds.
func newTestKubelet(t *testing.T, log *trace.Log) (*sim.Sim, *Kubelet) {
	t.Helper()
	s := sim.New(1, log)
	cfg := &kubeletconfigv1beta1.KubeletConfiguration{}
	kubeletconfig.SetDefaults(cfg, false, nil)
	api := apiserver.New(s)
	kl := New(s, Dependencies{Runtime: cri.New(s, cri.Config{}), API: api, Config: cfg, Gates: noGates{},
		Node: Node{Name: "node-1"}, MemoryCapacity: 8 << 30})
	kl.Run()
	api.Create(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", UID: "uid-web"},
		Spec: corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}})
	s.RunUntil(3 * time.Second)
	return s, kl
}

// The select has upstream's containerManager case: an update naming a pod the pod manager
// knows makes HandlePodSyncs sync it; one naming only unknown pods is ignored.
func TestContainerManagerUpdateSyncsKnownPods(t *testing.T) {
	var log trace.Log
	s, kl := newTestKubelet(t, &log)
	for _, e := range log.Events {
		if e.Kind == trace.Select && e.Name == containerManagerCh {
			t.Fatalf("%s chosen with nothing sent on it: %s", containerManagerCh, e.String())
		}
	}
	from := len(log.Events)
	kl.containerManager.Updates().TrySend(ResourceUpdate{PodUIDs: []types.UID{"uid-web", "uid-gone"}})
	s.RunUntil(3*time.Second + time.Millisecond)
	var chosen, synced bool
	for _, e := range log.Events[from:] {
		if e.Kind == trace.Select && e.Name == containerManagerCh {
			chosen = true
		}
		if e.Kind == KindHandler && e.Attr("cause") == containerManagerCh {
			synced = true
			if got := e.Attr("pods"); got != "default/web" {
				t.Errorf("HandlePodSyncs pods = %q, want default/web alone (uid-gone is not in the pod manager)", got)
			}
		}
	}
	if !chosen || !synced {
		t.Fatalf("containerManagerCh chosen %v, HandlePodSyncs called %v; want both", chosen, synced)
	}

	from = len(log.Events)
	kl.containerManager.Updates().TrySend(ResourceUpdate{PodUIDs: []types.UID{"uid-gone"}})
	s.RunUntil(3*time.Second + 2*time.Millisecond)
	var ignored bool
	for _, e := range log.Events[from:] {
		if e.Kind == KindHandler {
			t.Errorf("a handler ran for an update naming no known pod: %s", e.String())
		}
		if e.Kind == KindIgnored && e.Name == containerManagerCh {
			ignored = true
		}
	}
	if !ignored {
		t.Error("an update naming no known pod was not recorded as ignored")
	}
}

// The select is recorded whole as the syncLoop starts: eight cases in upstream's order.
func TestSelectCasesRecorded(t *testing.T) {
	var log trace.Log
	newTestKubelet(t, &log)
	var got []string
	for _, e := range log.Events {
		if e.Kind != KindSelectCases {
			continue
		}
		for _, a := range e.Attrs {
			if len(a.Key) < 4 || a.Key[:4] != "cap/" {
				got = append(got, a.Key+"="+e.Attr("cap/"+a.Key))
			}
		}
	}
	want := []string{"configCh=50", "plegCh=1000", "syncCh=1", "livenessCh=20", "readinessCh=20", "startupCh=20", "containerManagerCh=10", "housekeepingCh=1"}
	if len(got) != len(want) {
		t.Fatalf("select cases = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("case %d = %s, want %s", i, got[i], want[i])
		}
	}
}
