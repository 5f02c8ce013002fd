package kubeletconfig

import (
	"reflect"
	"testing"

	kubeletconfigv1beta1 "k8s.io/kubelet/config/v1beta1"
)

// CheckTLS refuses what the v1.37 kubelet's InitializeTLS refuses, in its words, at the
// first bad entry, and passes what it accepts (AgentBaker's eight cipher suites, two of them
// on upstream's insecure list, which the kubelet only logs).
func TestCheckTLS(t *testing.T) {
	const prefix = "failed to construct kubelet dependencies: "
	aks := []string{
		"TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
		"TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
		"TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305", "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
		"TLS_RSA_WITH_AES_256_GCM_SHA384", "TLS_RSA_WITH_AES_128_GCM_SHA256",
	}
	for _, c := range []struct {
		name    string
		ciphers []string
		version string
		curves  []int32
		want    []Problem
	}{
		{name: "unset"},
		{name: "AgentBaker's suites", ciphers: aks},
		// TLS 1.3 with suites set is only a log line in the kubelet, not a refusal.
		{name: "TLS 1.3 with suites", ciphers: aks, version: "VersionTLS13"},
		{name: "X25519 and P-256", curves: []int32{29, 23}},
		{
			name:    "unknown suite",
			ciphers: []string{"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_RSA_WITH_RC4_128_MD5"},
			want:    []Problem{{Field: "tlsCipherSuites", Key: "1", Msg: prefix + "Cipher suite TLS_RSA_WITH_RC4_128_MD5 not supported or doesn't exist"}},
		},
		{
			// The kubelet stops at the suites: the bad version after them is not reached.
			name:    "unknown suite and version",
			ciphers: []string{"bogus"},
			version: "VersionTLS14",
			want:    []Problem{{Field: "tlsCipherSuites", Key: "0", Msg: prefix + "Cipher suite bogus not supported or doesn't exist"}},
		},
		{
			name:    "unknown version",
			version: "VersionTLS14",
			want:    []Problem{{Field: "tlsMinVersion", Msg: prefix + `unknown tls version "VersionTLS14"`}},
		},
		{
			name:   "duplicate curve",
			curves: []int32{23, 24, 23},
			want:   []Problem{{Field: "tlsCurvePreferences", Key: "2", Msg: prefix + "duplicate curve preference 23"}},
		},
		{
			// 65536 = math.MaxUint16 + 1.
			name:   "curve out of range",
			curves: []int32{65536},
			want:   []Problem{{Field: "tlsCurvePreferences", Key: "0", Msg: prefix + "curve preference 65536 is out of range (must be 1-65535)"}},
		},
	} {
		cfg := &kubeletconfigv1beta1.KubeletConfiguration{TLSCipherSuites: c.ciphers, TLSMinVersion: c.version, TLSCurvePreferences: c.curves}
		if got := CheckTLS(cfg); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %+v, want %+v", c.name, got, c.want)
		}
	}
}
