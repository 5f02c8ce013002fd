package importer

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	yaml "go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubeletconfigv1beta1 "k8s.io/kubelet/config/v1beta1"
	statsv1alpha1 "k8s.io/kubelet/pkg/apis/stats/v1alpha1"

	api "nodesim/api/v1alpha1"
	"nodesim/internal/upstream"
	"nodesim/model/kubelet"
	"nodesim/model/kubeletconfig"
)

// Annotations the kubelet and the API server put on a mirror pod; a static pod's manifest
// has none of them.
const (
	mirrorAnnotation = "kubernetes.io/config.mirror"
	hashAnnotation   = "kubernetes.io/config.hash"
	seenAnnotation   = "kubernetes.io/config.seen"
	sourceAnnotation = "kubernetes.io/config.source"
)

// defaultImageSize is what the runtime assumes for an image whose size the capture does not
// give (api.DefaultImageSizeMiB).
const defaultImageSize = api.DefaultImageSizeMiB << 20

// build assembles the scenario document.
func (im *importer) build() *yaml.Node {
	nodeName := im.nodeName()
	stats := im.podStats()
	images, imagesBytes := im.images()
	pods, classes, podsMem, podsDisk, podsVols := im.buildPods(nodeName, stats)
	im.unmatchedStats(stats)

	name := "imported-node"
	if l := dnsLabel("import-" + nodeName); nodeName != "" && l != "" {
		name = l
	}
	spec := mapping(
		entry{key: "duration", value: str(DefaultDuration), line: "change it here or per run: --set spec.duration=1h"},
		entry{key: "node", value: im.buildNode(nodeName, podsMem, podsDisk, podsVols, imagesBytes)},
		entry{key: "kubelet", value: im.buildKubelet()},
		entry{key: "runtime", value: images},
		entry{key: "priorityClasses", value: classes},
		entry{key: "pods", value: pods},
	)
	root := mapping(
		entry{key: "apiVersion", value: str(api.APIVersion)},
		entry{key: "kind", value: str(api.Kind)},
		entry{key: "metadata", value: mapping(
			entry{key: "name", value: str(name)},
			entry{key: "description", value: str(im.description(nodeName, im.imported))},
		)},
		entry{key: "spec", value: spec},
	)
	root.HeadComment = comment(im.header())
	return &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{root}}
}

func (im *importer) nodeName() string {
	if im.node != nil && im.node.Name != "" {
		return im.node.Name
	}
	if im.summary != nil {
		return im.summary.Node.NodeName
	}
	return ""
}

func (im *importer) description(nodeName string, pods int) string {
	who := "a node"
	if nodeName != "" {
		who = "node " + nodeName
	}
	when := ""
	if t := im.capturedAt(); t != "" {
		when = " as captured at " + t
	}
	return fmt.Sprintf("%s%s: %d pods, each container's memory and disk usage held at its captured value.", who, when, pods)
}

// capturedAt is when the node's memory was measured (the summary's node memory time).
func (im *importer) capturedAt() string {
	if im.summary == nil || im.summary.Node.Memory == nil || im.summary.Node.Memory.Time.IsZero() {
		return ""
	}
	return stamp(im.summary.Node.Memory.Time)
}

// stamp writes a capture time in UTC; a figure the summary gives without one says so.
func stamp(t metav1.Time) string {
	if t.IsZero() {
		return "(time not captured)"
	}
	return t.UTC().Format(time.RFC3339)
}

// header is the comment at the top of the scenario: what was imported, from where, when.
func (im *importer) header() string {
	var b strings.Builder
	b.WriteString("Imported by `nodesim import` from a live node's captures:\n")
	if im.node != nil {
		v := im.node.Status.NodeInfo.KubeletVersion
		if v == "" {
			v = "unknown"
		}
		fmt.Fprintf(&b, "  node:    %s (Node %s, kubelet %s)\n", im.nodeFile, im.node.Name, v)
	}
	if im.kubelet != nil {
		fmt.Fprintf(&b, "  configz: %s\n", im.kubelet.file)
	}
	if im.summary != nil {
		fmt.Fprintf(&b, "  summary: %s", im.statsFile)
		if t := im.capturedAt(); t != "" {
			fmt.Fprintf(&b, " (node memory measured at %s", t)
			if from, to := im.podStatsTimes(); from != "" {
				if from == to {
					fmt.Fprintf(&b, ", containers at %s", from)
				} else {
					fmt.Fprintf(&b, ", containers from %s to %s", from, to)
				}
			}
			b.WriteString(")")
		}
		b.WriteString("\n")
	}
	if im.podsFile != "" {
		fmt.Fprintf(&b, "  pods:    %s\n", im.podsFile)
	}
	b.WriteString("A value taken from a capture says so beside it; every other value is nodesim's\n")
	b.WriteString("default, which is upstream v1.37's. Each container's usage is constant at what was\n")
	b.WriteString("captured: edit its usage program, or sweep it (nodesim sweep FILE --set\n")
	b.WriteString("'spec.pods[0].behavior.app.memory=[{set: 1Gi}]').")
	return b.String()
}

// podStatsTimes is the earliest and latest time a container's memory was measured.
func (im *importer) podStatsTimes() (string, string) {
	var from, to string
	for _, p := range im.summary.Pods {
		for _, c := range p.Containers {
			if c.Memory == nil || c.Memory.Time.IsZero() {
				continue
			}
			s := stamp(c.Memory.Time)
			if from == "" || s < from {
				from = s
			}
			if s > to {
				to = s
			}
		}
	}
	return from, to
}

// podStats indexes the summary's pods by namespace/name.
func (im *importer) podStats() map[string]*statsv1alpha1.PodStats {
	out := map[string]*statsv1alpha1.PodStats{}
	if im.summary == nil {
		return out
	}
	for i := range im.summary.Pods {
		p := &im.summary.Pods[i]
		out[podKey(p.PodRef.Namespace, p.PodRef.Name)] = p
	}
	return out
}

// unmatchedStats warns about pods the summary measured that the pods capture does not
// hold (captured at another moment, or no pods capture at all): their usage stays in the
// node's figures, so it counts as system usage.
func (im *importer) unmatchedStats(stats map[string]*statsv1alpha1.PodStats) {
	if len(im.pods) == 0 || len(stats) == 0 {
		return
	}
	known := map[string]bool{}
	for _, p := range im.pods {
		known[podKey(p.pod.Namespace, p.pod.Name)] = true
	}
	var missing []string
	for k := range stats {
		if !known[k] {
			missing = append(missing, k)
		}
	}
	if len(missing) == 0 {
		return
	}
	sort.Strings(missing)
	im.warn("%d pods in the stats summary are not in the pods capture; their usage counts as system usage: %s", len(missing), strings.Join(missing, ", "))
}

// buildNode is spec.node: the Node's name and capacity, the summary's inode and PID limits,
// and the usage outside the imported pods (the node's figures minus the pods').
func (im *importer) buildNode(nodeName string, podsMem, podsDisk, podsVols, imagesBytes int64) *yaml.Node {
	var entries []entry
	if nodeName != "" {
		entries = append(entries, entry{key: "name", value: str(nodeName)})
	}
	if im.node != nil {
		entries = append(entries, im.capacity())
	}
	sum := im.summary
	if sum == nil {
		return mapping(entries...)
	}
	node := sum.Node
	if fs := node.Fs; fs != nil && fs.Inodes != nil {
		entries = append(entries, entry{key: "inodes", value: integer(strconv.FormatUint(*fs.Inodes, 10)), line: "the summary's node.fs.inodes"})
	}
	if r := node.Rlimit; r != nil && r.MaxPID != nil {
		entries = append(entries, entry{key: "pids", value: integer(strconv.FormatInt(*r.MaxPID, 10)), line: "the summary's node.rlimit.maxpid"})
	}
	separate := false
	if rt := node.Runtime; rt != nil && rt.ImageFs != nil && rt.ImageFs.CapacityBytes != nil && node.Fs != nil && node.Fs.CapacityBytes != nil &&
		*rt.ImageFs.CapacityBytes != *node.Fs.CapacityBytes {
		separate = true
		entries = append(entries,
			entry{key: "imageFs", value: str(api.ImageFsSeparate), line: "the summary's runtime.imageFs differs from node.fs"},
			entry{key: "imageFsCapacity", value: str(quantity(int64(*rt.ImageFs.CapacityBytes))), line: "the summary's runtime.imageFs.capacityBytes"})
	}
	var usage []entry
	if m := node.Memory; m != nil && m.WorkingSetBytes != nil {
		ws := int64(*m.WorkingSetBytes)
		sys := ws - podsMem
		line := fmt.Sprintf("node working set %s at %s minus the imported containers' %s", quantity(ws), stamp(m.Time), quantity(podsMem))
		if sys < 0 {
			im.warn("the imported containers' working sets (%s) add up to more than the node's (%s): system memory usage set to 0", quantity(podsMem), quantity(ws))
			sys = 0
		}
		usage = append(usage, entry{key: "memory", value: program(sys), line: line})
	}
	if fs := node.Fs; fs != nil && fs.UsedBytes != nil {
		used := int64(*fs.UsedBytes)
		sys := used - podsVols
		line := fmt.Sprintf("nodefs used %s at %s minus emptyDir volumes %s", quantity(used), stamp(fs.Time), quantity(podsVols))
		if !separate {
			sys -= podsDisk + imagesBytes
			line = fmt.Sprintf("nodefs used %s at %s minus containers' rootfs and logs %s, emptyDir volumes %s and images %s",
				quantity(used), stamp(fs.Time), quantity(podsDisk), quantity(podsVols), quantity(imagesBytes))
		}
		if sys < 0 {
			im.warn("the imported pods and images (%s) take more than the node's filesystem holds in use (%s): system disk usage set to 0", quantity(used-sys), quantity(used))
			sys = 0
		}
		usage = append(usage, entry{key: "disk", value: program(sys), line: line})
	}
	if len(usage) > 0 {
		entries = append(entries, entry{key: "systemUsage", value: mapping(usage...),
			head: "usage outside the imported pods: the kernel, system daemons, the runtime"})
	}
	return mapping(entries...)
}

// modelledCapacity are the node resources the simulation models.
var modelledCapacity = []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage, corev1.ResourcePods}

// capacity is spec.node.capacity from the Node's status, its allocatable beside it.
func (im *importer) capacity() entry {
	st := im.node.Status
	var caps, alloc []string
	var entries []entry
	for _, r := range modelledCapacity {
		q, ok := st.Capacity[r]
		if !ok {
			continue
		}
		if r == corev1.ResourcePods && q.Value() != int64(im.maxPods()) {
			if im.kubelet != nil && im.kubelet.cfg.MaxPods != 0 {
				im.warn("the Node's capacity.pods %s differs from the kubelet's maxPods %d in configz: the capacity follows maxPods", q.String(), im.kubelet.cfg.MaxPods)
				continue
			}
		}
		entries = append(entries, entry{key: string(r), value: str(q.String())})
		caps = append(caps, string(r))
		if a, ok := st.Allocatable[r]; ok {
			alloc = append(alloc, fmt.Sprintf("%s %s", r, a.String()))
		}
	}
	var other []string
	for r := range st.Capacity {
		if !isModelledCapacity(r) {
			other = append(other, string(r))
		}
	}
	sort.Strings(other)
	head := "the Node's status.capacity"
	if len(alloc) > 0 {
		head += "; its status.allocatable was " + strings.Join(alloc, ", ")
	}
	if len(other) > 0 {
		head += "\nnot modelled, left out: " + strings.Join(other, ", ")
	}
	return entry{key: "capacity", value: mapping(entries...), head: head}
}

func isModelledCapacity(r corev1.ResourceName) bool {
	for _, m := range modelledCapacity {
		if r == m {
			return true
		}
	}
	return false
}

// maxPods is the kubelet's maxPods: configz's, else the Node's pod capacity (which the
// kubelet reports from it), else upstream's default 110.
func (im *importer) maxPods() int32 {
	if im.kubelet != nil && im.kubelet.cfg.MaxPods != 0 {
		return im.kubelet.cfg.MaxPods
	}
	if im.node != nil {
		if q, ok := im.node.Status.Capacity[corev1.ResourcePods]; ok {
			return int32(q.Value())
		}
	}
	return 110
}

// buildKubelet is spec.kubelet: the captured configuration's fields that the simulation
// reads, as captured. The others are named in a comment: a running kubelet's configz holds
// every field with its default, and listing ninety of them as "not modelled" in every
// report would hide the few a scenario sets on purpose.
func (im *importer) buildKubelet() *yaml.Node {
	var entries []entry
	if im.kubelet == nil {
		if im.node != nil {
			if q, ok := im.node.Status.Capacity[corev1.ResourcePods]; ok && q.Value() != 110 {
				entries = append(entries, entry{key: "maxPods", value: integer(strconv.FormatInt(q.Value(), 10)),
					line: "the Node's capacity.pods, which the kubelet reports from its maxPods"})
			}
		}
		if len(entries) == 0 {
			return nil
		}
		return mapping(entries...)
	}
	var left []string
	for _, f := range im.kubelet.fields {
		switch {
		case f.name == "apiVersion" || f.name == "kind":
		case f.name == "featureGates":
			if g := im.featureGates(f.value); g != nil {
				entries = append(entries, entry{key: f.name, value: g})
			}
		case kubeletconfig.Modelled(f.name):
			entries = append(entries, entry{key: f.name, value: copyNode(f.value)})
		default:
			left = append(left, f.name)
		}
	}
	head := ""
	if len(left) > 0 {
		sort.Strings(left)
		head = fmt.Sprintf("from %s: the fields the simulation reads. Left out, as nodesim does not model them:\n%s",
			im.kubelet.file, wrap(strings.Join(left, ", "), 88))
	}
	if len(entries) == 0 {
		return nil
	}
	m := mapping(entries...)
	if head != "" {
		m.Content[0].HeadComment = comment(head)
	}
	return m
}

// featureGates keeps the captured gates the v1.37 kubelet accepts; a gate it would refuse
// (unknown to v1.37, or locked) is left out with a warning, so the scenario runs.
func (im *importer) featureGates(n *yaml.Node) *yaml.Node {
	gates, err := upstream.NewKubeletGates()
	if err != nil {
		im.warn("feature gates left out: %v", err)
		return nil
	}
	names := make([]string, 0, len(im.kubelet.cfg.FeatureGates))
	for name := range im.kubelet.cfg.FeatureGates {
		names = append(names, name)
	}
	sort.Strings(names)
	var entries []entry
	for _, name := range names {
		v := im.kubelet.cfg.FeatureGates[name]
		if msg := gates.Check(name, v); msg != "" {
			im.warn("%s: featureGates.%s left out: %s (the v1.37 kubelet refuses it)", im.kubelet.file, name, msg)
			continue
		}
		entries = append(entries, entry{key: name, value: boolean(v)})
	}
	if len(entries) == 0 {
		return nil
	}
	return mapping(entries...)
}

// wrap breaks a comma-separated list into lines of at most width characters.
func wrap(s string, width int) string {
	var lines []string
	line := ""
	for _, w := range strings.SplitAfter(s, ", ") {
		if len(line)+len(w) > width && line != "" {
			lines = append(lines, strings.TrimRight(line, " "))
			line = ""
		}
		line += w
	}
	if line != "" {
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// images is spec.runtime: the images the Node reports as present, with their sizes, and
// every other image a pod uses, present (it ran there) with the default size.
func (im *importer) images() (*yaml.Node, int64) {
	used := map[string]bool{}
	for _, p := range im.pods {
		for _, list := range [][]corev1.Container{p.pod.Spec.InitContainers, p.pod.Spec.Containers} {
			for _, c := range list {
				used[c.Image] = true
			}
		}
	}
	seen := map[string]bool{}
	var items []*yaml.Node
	var total int64
	if im.node != nil {
		for _, img := range im.node.Status.Images {
			var names []string
			for _, n := range img.Names {
				if used[n] && !seen[n] {
					names = append(names, n)
				}
			}
			if len(names) == 0 {
				for _, n := range img.Names {
					if !strings.Contains(n, "@") && !seen[n] {
						names = []string{n}
						break
					}
				}
			}
			for _, n := range names {
				seen[n] = true
				size := img.SizeBytes
				items = append(items, mapping(
					entry{key: "name", value: str(n)},
					entry{key: "size", value: str(quantity(size))},
					entry{key: "present", value: boolean(true)}))
				total += (size + 512) / 1024 * 1024
			}
		}
	}
	var missing []string
	for n := range used {
		if !seen[n] {
			missing = append(missing, n)
		}
	}
	sort.Strings(missing)
	for i, n := range missing {
		it := mapping(entry{key: "name", value: str(n)}, entry{key: "present", value: boolean(true)})
		if i == 0 {
			it.Content[0].HeadComment = comment(fmt.Sprintf("in use by the pods but not in the Node's status.images (which lists at most 50):\npresent, with nodesim's default size of %dMi", api.DefaultImageSizeMiB))
		}
		items = append(items, it)
		total += defaultImageSize
	}
	if len(items) == 0 {
		return nil, 0
	}
	head := ""
	if im.node != nil {
		head = "the Node's status.images: present, with their sizes"
	}
	return mapping(entry{key: "images", value: sequence(items...), head: head}), total
}

// compareAllocatable says whether the allocatable nodesim derives for the imported node
// (capacity minus systemReserved, kubeReserved and the hard eviction thresholds, as the
// kubelet computes it) is the one the live Node reported. A difference means the capture's
// kubelet reserved something its configz does not say, or the captures come from different
// moments or nodes; admission in the simulation then differs from the node's.
func (im *importer) compareAllocatable(cfg *kubeletconfigv1beta1.KubeletConfiguration) string {
	if im.node == nil || len(im.node.Status.Allocatable) == 0 {
		return ""
	}
	capacity := corev1.ResourceList{}
	for _, r := range modelledCapacity {
		if q, ok := im.node.Status.Capacity[r]; ok {
			capacity[r] = q
		}
	}
	capacity[corev1.ResourcePods] = *resource.NewQuantity(int64(cfg.MaxPods), resource.DecimalSI)
	derived := kubelet.NodeAllocatable(capacity, cfg)
	var same, differ []string
	for _, r := range modelledCapacity {
		live, ok := im.node.Status.Allocatable[r]
		d, has := derived[r]
		if !ok || !has {
			continue
		}
		if d.Cmp(live) == 0 {
			same = append(same, string(r))
			continue
		}
		differ = append(differ, fmt.Sprintf("%s %s (the Node: %s)", r, d.String(), live.String()))
	}
	if len(differ) == 0 {
		return fmt.Sprintf("nodesim derives the same allocatable (%s) from capacity, systemReserved, kubeReserved and evictionHard", strings.Join(same, ", "))
	}
	im.warn("the simulated node's allocatable differs from the captured Node's: %s; reserved resources its configz does not show, or captures of different moments?", strings.Join(differ, ", "))
	return "nodesim derives a different allocatable from capacity, systemReserved, kubeReserved and evictionHard:\n" + strings.Join(differ, ", ")
}

// keyNode is the key node of key in mapping m, or nil.
func keyNode(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i]
		}
	}
	return nil
}
