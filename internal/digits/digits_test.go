package digits

import (
	"fmt"
	"testing"
)

func TestPairs(t *testing.T) {
	for n := 0; n < 100; n++ {
		if got, want := Pairs[2*n:2*n+2], fmt.Sprintf("%02d", n); got != want {
			t.Fatalf("Pairs for %d is %q, want %q", n, got, want)
		}
	}
	if len(Pairs) != 200 {
		t.Fatalf("Pairs holds %d bytes, want 200", len(Pairs))
	}
}
