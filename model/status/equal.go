package status

import (
	corev1 "k8s.io/api/core/v1"

	"nodesim/model/apiserver"
)

// statusEqual is the status manager's test of whether a generated status changed:
// reflect.DeepEqual's relation exactly (it was that call, and the status manager's versions
// depend on it), by apiserver.StatusDeepEqual's typed walk, which is shared with the
// Semantic comparison against API objects. TestStatusEqualCoversEveryField fails when
// k8s.io/api adds a field.
func statusEqual(a, b *corev1.PodStatus) bool { return apiserver.StatusDeepEqual(a, b) }
