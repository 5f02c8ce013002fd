// Package strictyaml decodes YAML documents into Go values strictly and with
// precise diagnostics.
//
// It exists because the usual route for Kubernetes-style YAML (YAML → JSON →
// encoding/json, as sigs.k8s.io/yaml does) loses positions and stops at the
// first problem, while yaml.v3's own decoder ignores `json` struct tags and
// silently accepts unknown fields. A user editing a scenario file wants every
// mistake at once, each with file:line:column and the path of the field, e.g.
//
//	scenario.yaml:14:7: spec.kubelet: unknown field "evictonHard" (did you mean "evictionHard"?)
//
// The decoder walks a *yaml.Node tree (see ParseDocument) with reflection,
// honouring `json` tags so that Kubernetes API types (corev1.Pod,
// KubeletConfiguration, ...) can be decoded as well as our own types. Types
// that know how to parse themselves are respected: NodeUnmarshaler first,
// then json.Unmarshaler (resource.Quantity, metav1.Duration, ...), then
// encoding.TextUnmarshaler.
//
// Scalars are matched strictly on their resolved YAML tag: `replicas: "3"`
// is a string and does not fill an int field, and `image: 1.25` is a float
// and does not fill a string field. YAML merge keys (`<<: *base`) are
// supported; explicit keys override merged ones.
package strictyaml
