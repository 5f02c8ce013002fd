package explain

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The README's glossary is the table Glossary renders, so `explain --glossary` and the
// README never disagree.
func TestREADMEGlossaryIsCurrent(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Skip("no README next to the module")
	}
	if !strings.Contains(string(readme), GlossaryMarkdown()) {
		t.Errorf("README's glossary is not GlossaryMarkdown(); paste:\n%s", GlossaryMarkdown())
	}
}

// Each older name an article may use appears in `explain --glossary`, with today's name.
func TestGlossaryNamesTheArticlesTerms(t *testing.T) {
	var b bytes.Buffer
	if err := WriteGlossary(&b); err != nil {
		t.Fatal(err)
	}
	for _, pair := range [][2]string{
		{"managePodLoop", "podWorkerLoop"}, {"dispatchWork", "UpdatePod"}, {"podKiller", "SyncTerminatingPod"},
		{"syncPod", "SyncPod"}, {"HTTP source", "NewSourceURL"}, {"liveness channel", "livenessCh"},
		{"containerManager", "Updates()"}, {"mirror pod", "tryReconcileMirrorPods"},
	} {
		i := strings.Index(b.String(), pair[0])
		if i < 0 {
			t.Errorf("glossary lacks %q", pair[0])
			continue
		}
		entry, _, _ := strings.Cut(b.String()[i:], "\n\n")
		if !strings.Contains(entry, pair[1]) {
			t.Errorf("glossary entry for %q does not name %q:\n%s", pair[0], pair[1], entry)
		}
	}
}
