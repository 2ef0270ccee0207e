package redact

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// A secret a command printed as an assignment is removed from the command
// line that printed it too, where nothing marks it as a secret.
func TestLearning(t *testing.T) {
	t.Parallel()
	const secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	command := json.RawMessage(`{"command":"printf 'AWS_SECRET_ACCESS_KEY=%s\\n' '` + strings.ReplaceAll(secret, "/", `\/`) + `'"}`)
	output := json.RawMessage(`{"output":"AWS_SECRET_ACCESS_KEY=` + secret + `\n[exit code 0]"}`)
	base := New("sk-configured-value-123456")

	// Alone, the command line keeps the value: nothing says it is a secret.
	if got := base.JSON("event 1", command); !strings.Contains(string(got), "EXAMPLEKEY") {
		t.Fatalf("without learning the command line was redacted: %s", got)
	}
	probe := base.Learning()
	probe.JSON("", command)
	probe.JSON("", output)
	probe.String("", "my key is sk-configured-value-123456") // configured: not learned again
	learned := probe.Learned()
	if !slices.Equal(learned, []string{secret}) {
		t.Fatalf("Learned = %q, want the printed value only", learned)
	}
	if len(probe.Report()) == 0 {
		t.Errorf("the learning pass counted nothing")
	}

	r := base.WithLearned(learned)
	for _, doc := range []json.RawMessage{command, output} {
		got := r.JSON("event", doc)
		if strings.Contains(string(got), "EXAMPLEKEY") || !json.Valid(got) {
			t.Errorf("JSON(%s) = %s", doc, got)
		}
	}
	if got := r.String("text", "also "+secret); got != "also [REDACTED:learned]" {
		t.Errorf("String = %q", got)
	}
	if got := r.String("text", "configured sk-configured-value-123456"); got != "configured [REDACTED:configured]" {
		t.Errorf("the configured value: %q", got)
	}
	found := false
	for _, f := range r.Report() {
		found = found || f.Kind == KindLearned
	}
	if !found {
		t.Errorf("report %+v names no learned value", r.Report())
	}
	// Short or empty finds are not learned; a redactor learns nothing
	// unless asked.
	if got := base.WithLearned([]string{"", "short"}); len(got.raw) != 1 {
		t.Errorf("short values were learned: %d values", len(got.raw))
	}
	if base.Learned() == nil || len(base.Learned()) != 0 {
		t.Errorf("a plain redactor learned %q", base.Learned())
	}
}
