package kubeletconfig

import (
	"fmt"

	cliflag "k8s.io/component-base/cli/flag"
	kubeletconfigv1beta1 "k8s.io/kubelet/config/v1beta1"
)

// CheckTLS answers the serving TLS settings as the v1.37 kubelet parses them when it builds
// its dependencies (InitializeTLS, called by UnsecuredDependencies right after the
// configuration validated): a cipher suite name, a minimum version or a curve it does not
// know stops the kubelet. ValidateKubeletConfiguration does not look at these fields, so
// without this check a misspelled cipher would load here though the kubelet refuses it.
//
// The parsing is upstream's own (k8s.io/component-base/cli/flag), which stops at the first
// bad entry; so does this check, and it checks the three fields in the kubelet's order,
// reporting only the first failure, as the kubelet does. Key is the index of the bad entry.
func CheckTLS(c *kubeletconfigv1beta1.KubeletConfiguration) []Problem {
	const prefix = "failed to construct kubelet dependencies: "
	if _, err := cliflag.TLSCipherSuites(c.TLSCipherSuites); err != nil {
		return []Problem{{Field: "tlsCipherSuites", Key: firstBad(len(c.TLSCipherSuites), func(n int) error {
			_, err := cliflag.TLSCipherSuites(c.TLSCipherSuites[:n])
			return err
		}), Msg: prefix + err.Error()}}
	}
	if _, err := cliflag.TLSVersion(c.TLSMinVersion); err != nil {
		return []Problem{{Field: "tlsMinVersion", Msg: prefix + err.Error()}}
	}
	if _, err := cliflag.TLSCurvePreferences(c.TLSCurvePreferences); err != nil {
		return []Problem{{Field: "tlsCurvePreferences", Key: firstBad(len(c.TLSCurvePreferences), func(n int) error {
			_, err := cliflag.TLSCurvePreferences(c.TLSCurvePreferences[:n])
			return err
		}), Msg: prefix + err.Error()}}
	}
	return nil
}

// firstBad is the index of the entry that makes a list fail to parse: the length of the
// shortest failing prefix, less one. A duplicate is reported at its second occurrence.
func firstBad(n int, parse func(n int) error) string {
	for i := 1; i <= n; i++ {
		if parse(i) != nil {
			return fmt.Sprint(i - 1)
		}
	}
	return ""
}
