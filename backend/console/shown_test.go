package console

import (
	"encoding/json"
	"strings"
	"testing"

	"steward/backend/event"
)

// A command line is shown as typed: never JSON, never escaped (the log's
// JSON has 2\u003e\u00261 for 2>&1).
func TestCommandLineShownAsTyped(t *testing.T) {
	t.Parallel()
	raw := json.RawMessage(`{"command":"go test ./... 2\u003e\u00261 | tail -n 5","cwd":"backend"}`)
	if got, want := shown("run_command", raw, 400), "$ go test ./... 2>&1 | tail -n 5   (in backend)"; got != want {
		t.Errorf("shown %q, want %q", got, want)
	}
	if got, want := shown("write_file", json.RawMessage(`{"path":"a.html","content":"\u003cb\u003e"}`), 400), `{"content":"<b>","path":"a.html"}`; got != want {
		t.Errorf("shown %q, want %q", got, want)
	}
}

// An approval's preview prints as git colours a diff, cut with the count of
// the lines left, and plain without colour.
func TestPreviewPrintsTheDiffInColour(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	c := &Console{Out: &out, Color: true}
	c.preview(&event.Preview{Diff: "--- a/x\n+++ b/x\n@@ -3,3 +3,3 @@\n a\n-b\n+c\n d\n", Note: "y: binary file"})
	for _, want := range []string{"\x1b[1m--- a/x\x1b[0m", "\x1b[36m@@ -3,3 +3,3 @@\x1b[0m", "\x1b[31m-b\x1b[0m", "\x1b[32m+c\x1b[0m", "\n   a\n", "(y: binary file)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("preview lacks %q:\n%q", want, out.String())
		}
	}
	out.Reset()
	c.Color = false
	c.preview(&event.Preview{Diff: strings.Repeat("+x\n", maxPreviewLines+5)})
	if got := out.String(); strings.Count(got, "+x") != maxPreviewLines || !strings.Contains(got, "… 5 more lines") || strings.Contains(got, "\x1b") {
		t.Errorf("cut preview:\n%s", got)
	}
}
