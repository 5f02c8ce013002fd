package importer

import (
	"strings"

	yaml "go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubeletconfigv1beta1 "k8s.io/kubelet/config/v1beta1"
	statsv1alpha1 "k8s.io/kubelet/pkg/apis/stats/v1alpha1"

	"nodesim/internal/strictyaml"
)

// readNode decodes the Node object (`kubectl get node N -o yaml`, or -o json).
func (im *importer) readNode(in *Input) {
	root := im.parse(in)
	if root == nil {
		return
	}
	if k := lookup(root, "kind"); k == nil || k.Value != "Node" {
		im.errorAt(in.Name, orRoot(k, root), "kind", "expected a Node object (kubectl get node NAME -o yaml)")
		return
	}
	node := &corev1.Node{}
	n := len(im.errs)
	im.decode(in.Name, root, "", node, underStatus)
	if len(im.errs) > n {
		return
	}
	im.node, im.nodeFile = node, in.Name
}

// readConfigz decodes the kubelet's /configz answer: {"kubeletconfig": {...}}, the running
// configuration in kubelet.config.k8s.io/v1beta1 form without apiVersion and kind. A bare
// KubeletConfiguration (a config file) is taken as well.
func (im *importer) readConfigz(in *Input) {
	root := im.parse(in)
	if root == nil {
		return
	}
	cfgNode, path := lookup(root, "kubeletconfig"), "kubeletconfig"
	if cfgNode == nil {
		if k := lookup(root, "kind"); k != nil && k.Value == "KubeletConfiguration" {
			cfgNode, path = root, ""
		}
	}
	if cfgNode == nil || cfgNode.Kind != yaml.MappingNode {
		if cfgNode == nil {
			path = ""
		}
		im.errorAt(in.Name, orRoot(cfgNode, root), path, `expected the kubelet's /configz answer, {"kubeletconfig": {...}}`)
		return
	}
	cfg := &kubeletconfigv1beta1.KubeletConfiguration{}
	n := len(im.errs)
	// The kubelet decodes its configuration leniently when only unknown fields stop it; a
	// capture from another kubelet version is read the same way.
	im.decode(in.Name, cfgNode, path, cfg, func(p string) bool { return true })
	if len(im.errs) > n {
		return
	}
	z := &configz{file: in.Name, cfg: cfg}
	known := knownKubeletFields()
	for i := 0; i+1 < len(cfgNode.Content); i += 2 {
		name := cfgNode.Content[i].Value
		if !known[name] {
			continue // warned about by decode
		}
		z.fields = append(z.fields, configField{name: name, value: cfgNode.Content[i+1]})
	}
	im.kubelet = z
}

// readSummary decodes the kubelet's /stats/summary.
func (im *importer) readSummary(in *Input) {
	root := im.parse(in)
	if root == nil {
		return
	}
	if lookup(root, "node") == nil {
		im.errorAt(in.Name, root, "", `expected the kubelet's /stats/summary answer, {"node": {...}, "pods": [...]}`)
		return
	}
	sum := &statsv1alpha1.Summary{}
	n := len(im.errs)
	// Stats of a newer kubelet may carry more figures; the import reads only the ones it
	// knows.
	d := im.decode(in.Name, root, "", sum, func(string) bool { return true })
	if len(im.errs) > n {
		return
	}
	im.checkSummary(d, sum)
	if len(im.errs) > n {
		return
	}
	im.summary, im.statsFile = sum, in.Name
}

// podList is a v1 List or PodList of pods, as kubectl prints it.
type podList struct {
	APIVersion string          `json:"apiVersion,omitempty"`
	Kind       string          `json:"kind,omitempty"`
	Metadata   metav1.ListMeta `json:"metadata,omitempty"`
	Items      []corev1.Pod    `json:"items"`
}

// readPods decodes the pods capture: documents each a Pod, a List or a PodList.
func (im *importer) readPods(in *Input) {
	if !im.textual(in) {
		return
	}
	roots, err := strictyaml.ParseDocuments(in.Name, in.Data)
	if err != nil {
		im.fail(err)
		return
	}
	im.podsFile = in.Name
	for _, root := range roots {
		kind := ""
		if k := lookup(root, "kind"); k != nil {
			kind = k.Value
		}
		n := len(im.errs)
		switch kind {
		case "List", "PodList":
			list := &podList{}
			im.decode(in.Name, root, "", list, underStatus)
			if len(im.errs) > n {
				continue
			}
			items := lookup(root, "items")
			for j := range list.Items {
				pod := &list.Items[j]
				item := items.Content[j]
				if pod.Kind != "" && pod.Kind != "Pod" {
					im.errorAt(in.Name, lookup(item, "kind"), strictyaml.Index("items", j)+".kind", "kind %q is not a Pod", pod.Kind)
					continue
				}
				im.addPod(pod, in.Name, item)
			}
		case "Pod":
			pod := &corev1.Pod{}
			im.decode(in.Name, root, "", pod, underStatus)
			if len(im.errs) == n {
				im.addPod(pod, in.Name, root)
			}
		default:
			im.errorAt(in.Name, orRoot(lookup(root, "kind"), root), "kind", "expected Pod, PodList or List (kubectl get pods -o yaml), got %q", kind)
		}
	}
}

func (im *importer) addPod(pod *corev1.Pod, file string, n *yaml.Node) {
	if pod.Name == "" {
		im.errorAt(file, n, "metadata", "a pod without metadata.name")
		return
	}
	im.pods = append(im.pods, capturedPod{pod: pod, at: strictyaml.Pos{File: file, Line: n.Line}.String()})
}

func orRoot(n, root *yaml.Node) *yaml.Node {
	if n != nil {
		return n
	}
	return root
}

// knownKubeletFields are the JSON names of KubeletConfiguration's fields.
func knownKubeletFields() map[string]bool {
	return jsonFieldNames(kubeletconfigv1beta1.KubeletConfiguration{})
}

// isSidecar says whether an init container keeps running beside the regular containers.
func isSidecar(c *corev1.Container) bool {
	return c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways
}

// podKey is namespace/name, with the API server's default namespace.
func podKey(namespace, name string) string {
	if namespace == "" {
		namespace = "default"
	}
	return namespace + "/" + name
}

// dnsLabel turns s into a DNS label (lower case, [a-z0-9-], at most 63 characters).
func dnsLabel(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	out := b.String()
	if len(out) > 63 {
		out = out[:63]
	}
	return strings.Trim(out, "-")
}

// maxFigure is the largest byte or count figure the import takes from the summary: 1Ei,
// the most any scenario quantity may be. A larger one (or a uint64 that would turn
// negative as int64) is an error at its position, not a wrapped number.
const maxFigure = 1 << 60

// checkSummary refuses figures the scenario could not hold.
func (im *importer) checkSummary(d *strictyaml.Decoder, sum *statsv1alpha1.Summary) {
	before := len(d.Errors) // decoding's, already sorted into errors and warnings
	check := func(path string, v *uint64) {
		if v != nil && *v > maxFigure {
			d.ErrorAt(path, "%d is more than nodesim takes (1Ei)", *v)
		}
	}
	fs := func(path string, f *statsv1alpha1.FsStats) {
		if f != nil {
			check(path+".usedBytes", f.UsedBytes)
			check(path+".capacityBytes", f.CapacityBytes)
			check(path+".inodes", f.Inodes)
		}
	}
	mem := func(path string, m *statsv1alpha1.MemoryStats) {
		if m != nil {
			check(path+".workingSetBytes", m.WorkingSetBytes)
		}
	}
	mem("node.memory", sum.Node.Memory)
	fs("node.fs", sum.Node.Fs)
	if rt := sum.Node.Runtime; rt != nil {
		fs("node.runtime.imageFs", rt.ImageFs)
	}
	if r := sum.Node.Rlimit; r != nil && r.MaxPID != nil && (*r.MaxPID < 1 || *r.MaxPID > maxFigure) {
		d.ErrorAt("node.rlimit.maxpid", "%d is not a process limit nodesim takes (1 to 1Ei)", *r.MaxPID)
	}
	for i, p := range sum.Pods {
		pp := strictyaml.Index("pods", i)
		for j, c := range p.Containers {
			cp := strictyaml.Index(pp+".containers", j)
			mem(cp+".memory", c.Memory)
			fs(cp+".rootfs", c.Rootfs)
			fs(cp+".logs", c.Logs)
		}
		for j := range p.VolumeStats {
			check(strictyaml.Index(pp+".volume", j)+".usedBytes", p.VolumeStats[j].UsedBytes)
		}
	}
	im.errs = append(im.errs, d.Errors[before:]...)
}
