package console

import (
	"encoding/json"
	"testing"
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
