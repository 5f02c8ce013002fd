package safetext

import "testing"

func TestEscape(t *testing.T) {
	for _, c := range []struct{ in, want, text string }{
		{"plain nginx:1.27", "plain nginx:1.27", "plain nginx:1.27"},
		{"\x1b[2Jclear", `\x1b[2Jclear`, `\x1b[2Jclear`},
		{"\x1b]0;pwned\x07title", `\x1b]0;pwned\x07title`, `\x1b]0;pwned\x07title`},
		{"a\nb\tc", `a\x0ab\x09c`, "a\nb\tc"},
		{"csi\u009b31m", `csi\u009b31m`, `csi\u009b31m`},
		{"rtl\u202eevil", `rtl\u202eevil`, `rtl\u202eevil`},
		{"bad\xffbyte", `bad\xffbyte`, `bad\xffbyte`},
		{"ünïcode ok", "ünïcode ok", "ünïcode ok"},
		{"del\x7f", `del\x7f`, `del\x7f`},
	} {
		if got := Escape(c.in); got != c.want {
			t.Errorf("Escape(%q) = %q, want %q", c.in, got, c.want)
		}
		if got := EscapeText(c.in); got != c.text {
			t.Errorf("EscapeText(%q) = %q, want %q", c.in, got, c.text)
		}
	}
}
