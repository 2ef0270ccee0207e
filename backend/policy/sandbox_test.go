package policy

import (
	"encoding/json"
	"strings"
	"testing"

	"steward/backend/tool"
)

// TestDecideUnsandboxed: a command that the sandbox should confine and
// cannot asks in every mode, also where a rule or a grant allows it; it is
// denied when the sandbox is required, by a deny rule, in plan mode and
// unattended.
func TestDecideUnsandboxed(t *testing.T) {
	t.Parallel()
	const why = "bubblewrap is not installed"
	missing := Sandbox{Missing: why}
	cmd := json.RawMessage(`{"command":"go test ./..."}`)
	allowGo := Rule{Effect: Allow, Tool: "run_command", Match: "go test *", Source: "grant agent gr_1"}
	denyGo := Rule{Effect: Deny, Tool: "run_command", Match: "go test *"}
	askAll := Rule{Effect: Ask, Tool: "*"}
	tests := []struct {
		name   string
		in     Input
		want   Effect
		reason string
	}{
		{"auto runs when sandboxed", Input{Mode: ModeAuto}, Allow, "mode auto"},
		{"auto asks when not sandboxed", Input{Mode: ModeAuto, Sandbox: missing}, Ask, "not sandboxed: " + why},
		{"edits asks when not sandboxed", Input{Mode: ModeEdits, Sandbox: missing}, Ask, "mode edits: exec tool run_command needs approval; not sandboxed: " + why},
		{"ask asks when not sandboxed", Input{Mode: ModeAsk, Sandbox: missing}, Ask, "not sandboxed"},
		{"a grant does not allow an unsandboxed command", Input{Mode: ModeAsk, Rules: []Rule{allowGo}, Sandbox: missing}, Ask, "grant agent gr_1"},
		{"a grant allows a sandboxed command", Input{Mode: ModeAsk, Rules: []Rule{allowGo}}, Allow, "grant agent gr_1"},
		{"an ask rule keeps its reason", Input{Mode: ModeAuto, Rules: []Rule{askAll}, Sandbox: missing}, Ask, "rule ask *"},
		{"a deny rule still denies", Input{Mode: ModeAuto, Rules: []Rule{denyGo}, Sandbox: missing}, Deny, "rule deny run_command go test *"},
		{"plan still denies", Input{Mode: ModePlan, Sandbox: missing}, Deny, "mode plan"},
		{"required and missing is denied", Input{Mode: ModeAuto, Sandbox: Sandbox{Missing: why, Required: true}}, Deny, "sandbox on: run_command cannot run unsandboxed, and " + why},
		{"required and there runs", Input{Mode: ModeAuto, Sandbox: Sandbox{Required: true}}, Allow, "mode auto"},
		{"unattended: the ask is denied", Input{Mode: ModeAuto, Unattended: true, Sandbox: missing}, Deny, "nobody to ask"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := tt.in
			in.Tool, in.Risk, in.Args = "run_command", tool.RiskExec, cmd
			d := Decide(in)
			if d.Effect != tt.want || !strings.Contains(d.Reason, tt.reason) {
				t.Errorf("Decide = %s %q, want %s with %q", d.Effect, d.Reason, tt.want, tt.reason)
			}
		})
	}
}
