// Package upstream is the one place nodesim reaches into k8s.io/kubernetes v1.37.2 for its
// pure, deterministic packages: the feature-gate registry, pod defaulting and validation,
// the system priority classes. Loops and state stay nodesim's own models.
package upstream
