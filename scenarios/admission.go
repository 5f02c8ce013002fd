package scenarios

import (
	"crypto/sha256"
	"fmt"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	api "nodesim/api/v1alpha1"
	"nodesim/internal/strictyaml"
	"nodesim/internal/upstream"
	"nodesim/sim"
)

// pathMapper turns a path in a pod, as upstream's validation names it
// ("spec.containers[0].resources.limits[memory]"), into the loader's path of the node that
// wrote it ("spec.pods[2].pod.spec.containers[0].resources.limits.memory"), so that the
// error is positioned where the user wrote the value.
type pathMapper func(podPath string) string

// prefixMapper maps a pod's paths below prefix, where the whole pod is written (an inline
// pod, a document of a pod file, an item of a PodList).
func prefixMapper(prefix string) pathMapper {
	return func(p string) string {
		if prefix == "" {
			return p
		}
		if p == "" {
			return prefix
		}
		return prefix + "." + p
	}
}

// templateMapper maps a pod made from a workload's pod template: the pod's spec and its
// labels and annotations were written in the template at tmpl; its name was chosen by the
// controller from the workload's own name at nameAt.
func templateMapper(tmpl, nameAt string) pathMapper {
	return func(p string) string {
		switch {
		case p == "metadata.name" || p == "metadata.generateName":
			return nameAt
		case p == "metadata.namespace":
			return strings.TrimSuffix(nameAt, ".name") + ".namespace"
		case strings.HasPrefix(p, "metadata") || strings.HasPrefix(p, "spec"):
			return tmpl + "." + p
		default:
			return tmpl
		}
	}
}

// loaderPath rewrites an upstream field path in the loader's notation: subscripts that are
// indexes stay "[3]", subscripts that are map keys become keys as strictyaml.Join writes
// them ("limits[memory]" -> "limits.memory", "labels[example.com/x]" -> `labels["example.com/x"]`).
func loaderPath(p string) string {
	out := ""
	for len(p) > 0 {
		switch p[0] {
		case '.':
			p = p[1:]
		case '[':
			end := strings.IndexByte(p, ']')
			if end < 0 {
				return strictyaml.Join(out, p)
			}
			sub := p[1:end]
			p = p[end+1:]
			if n, err := strconv.Atoi(sub); err == nil && n >= 0 {
				out = strictyaml.Index(out, n)
			} else {
				out = strictyaml.Join(out, sub)
			}
		default:
			end := strings.IndexAny(p, ".[")
			if end < 0 {
				end = len(p)
			}
			out = strictyaml.Join(out, p[:end])
			p = p[end:]
		}
	}
	return out
}

// admitPod does to one pod what the API server does to a pod it is asked to create (or,
// for a static pod, what the kubelet's file source does): the metadata it sets itself, v1
// defaulting, the Priority admission plugin, then ValidatePodCreate. Each problem is reported
// through errorAt at the loader's path that mapPath gives, in upstream's words; it reports
// whether the pod was admitted.
func (l *loader) admitPod(p *Pod, mapPath pathMapper, errorAt func(path, format string, args ...any)) bool {
	defaultObjectMeta(p.Pod, p.At)
	upstream.DefaultPod(p.Pod)
	static := p.Source == api.SourceFile
	// Static pods never pass through the API server's admission; the kubelet treats them as
	// critical on its own.
	if !static {
		if field, err := l.priorityClasses().AdmitPod(p.Pod); err != nil {
			errorAt(mapPath("spec."+field), "%v", err)
			return false
		}
	}
	l.dropRestartRules(p.Pod, mapPath("spec"), static, func(path, msg string) { l.warnAt(l.d, path, msg) })
	errs, err := l.gates().ValidatePodCreate(p.Pod, static)
	if err != nil {
		errorAt(mapPath(""), "%v", err)
		return false
	}
	for _, e := range errs {
		errorAt(mapPath(loaderPath(e.Field)), "%s", e.ErrorBody())
	}
	return len(errs) == 0
}

// admitUpdate defaults and validates a changed pod. It is validated as a pod on its own
// (ValidatePodCreate): the update rules of ValidatePodUpdate (which fields may change) are
// not checked, and the Priority plugin, which acts on create only, does not run again.
func (l *loader) admitUpdate(pod *corev1.Pod, static bool, mapPath pathMapper) {
	upstream.DefaultPod(pod)
	l.dropRestartRules(pod, mapPath("spec"), static, func(path, msg string) { l.warnAt(l.d, path, msg) })
	errs, err := l.gates().ValidatePodCreate(pod, static)
	if err != nil {
		l.d.ErrorAt(mapPath(""), "%v", err)
		return
	}
	for _, e := range errs {
		l.d.ErrorAt(mapPath(loaderPath(e.Field)), "%s", e.ErrorBody())
	}
}

// gates are the run's feature gates, or the v1.37 defaults when the kubelet config's gates
// could not be set (that is reported on its own).
func (l *loader) gates() *upstream.KubeletGates {
	if l.out.Gates != nil {
		return l.out.Gates
	}
	if l.defaultGates == nil {
		g, err := upstream.NewKubeletGates()
		if err != nil {
			// The registry is built from upstream's tables; failing here is a bug, and every
			// pod would be refused with the error below.
			l.d.ErrorAt("", "%v", err)
			g = &upstream.KubeletGates{}
		}
		l.defaultGates = g
	}
	return l.defaultGates
}

// dedupErrors wraps errorAt so that a problem reported at the same place with the same words
// is reported once: the replicas of one entry share their spec.
func dedupErrors(errorAt func(path, format string, args ...any)) func(path, format string, args ...any) {
	seen := map[string]bool{}
	return func(path, format string, args ...any) {
		key := path + "\x00" + fmt.Sprintf(format, args...)
		if seen[key] {
			return
		}
		seen[key] = true
		errorAt(path, format, args...)
	}
}

// defaultObjectMeta sets what the API server sets in a new pod's metadata: the namespace
// of the request (default), a UID (derived from the pod's name, so that runs are
// reproducible), and the creation time (its delivery).
func defaultObjectMeta(p *corev1.Pod, at time.Duration) {
	if p.Namespace == "" {
		p.Namespace = "default"
	}
	if p.UID == "" {
		p.UID = stableUID(p.Namespace + "/" + p.Name)
	}
	if p.CreationTimestamp.IsZero() {
		p.CreationTimestamp = metav1.NewTime(sim.Epoch.Add(at))
	}
}

// stableUID derives a UID in the API server's format from a name.
func stableUID(name string) types.UID {
	sum := sha256.Sum256([]byte(name))
	h := fmt.Sprintf("%x", sum[:16])
	return types.UID(h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32])
}
