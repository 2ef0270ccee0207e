package console

import (
	"testing"

	"steward/backend/event"
)

func TestSandboxNote(t *testing.T) {
	t.Parallel()
	why := "the command sandbox cannot work here: bubblewrap is not installed"
	tests := []struct {
		s    *event.Sandbox
		want string
	}{
		{nil, ""},
		{&event.Sandbox{Mode: "auto", Network: "off", Confined: true}, ""},
		{&event.Sandbox{Mode: "auto", Network: "off", Reason: why}, "commands are not sandboxed here (" + why + "): each one asks first"},
		{&event.Sandbox{Mode: "on", Network: "off", Reason: why}, "commands are refused: the sandbox is on and cannot work here (" + why + ")"},
		{&event.Sandbox{Mode: "off", Network: "on", Reason: "off"}, "the sandbox is off for this run: commands see what Steward's user sees"},
	}
	for _, tt := range tests {
		if got := sandboxNote(tt.s); got != tt.want {
			t.Errorf("sandboxNote(%+v) = %q, want %q", tt.s, got, tt.want)
		}
	}
}
