package scenarios

// CRICalls lists the fake runtime's calls that spec.runtime.failures[].call may name (the
// scenario JSON Schema offers the same list).
func CRICalls() []string { return criCalls() }
