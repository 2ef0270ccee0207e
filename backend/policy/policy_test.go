package policy

import (
	"strings"
	"testing"

	"steward/backend/tool"
)

func TestDecide(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		in        Input
		want      Effect
		reasonHas string
	}{
		{"read runs", Input{Mode: "ask", Tool: "read_file", Risk: tool.RiskRead}, Allow, "read-only"},
		{"list runs", Input{Mode: "ask", Tool: "list_dir", Risk: tool.RiskRead}, Allow, "list_dir"},
		{"write asks", Input{Mode: "ask", Tool: "write_file", Risk: tool.RiskWrite}, Ask, "needs approval"},
		{"exec asks", Input{Mode: "ask", Tool: "run_command", Risk: tool.RiskExec}, Ask, "exec"},
		{"network asks", Input{Mode: "ask", Tool: "browser_open", Risk: tool.RiskNetwork}, Ask, "network"},
		{"destructive asks", Input{Mode: "ask", Tool: "rm", Risk: tool.RiskDestructive}, Ask, "destructive"},
		{"unknown risk asks", Input{Mode: "ask", Tool: "x", Risk: "weird"}, Ask, "needs approval"},
		{"unknown mode asks even for reads", Input{Mode: "yolo", Tool: "read_file", Risk: tool.RiskRead}, Ask, "unknown mode"},
		{"unattended write denied", Input{Mode: "ask", Tool: "write_file", Risk: tool.RiskWrite, Unattended: true}, Deny, "unattended"},
		{"unattended read allowed", Input{Mode: "ask", Tool: "read_file", Risk: tool.RiskRead, Unattended: true}, Allow, "read-only"},
		{"unattended unknown mode denied", Input{Mode: "", Tool: "read_file", Risk: tool.RiskRead, Unattended: true}, Deny, "nobody to ask"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Decide(tt.in)
			if got.Effect != tt.want {
				t.Fatalf("Decide(%+v).Effect = %s, want %s (reason %q)", tt.in, got.Effect, tt.want, got.Reason)
			}
			if !strings.Contains(got.Reason, tt.reasonHas) {
				t.Errorf("reason %q does not mention %q", got.Reason, tt.reasonHas)
			}
		})
	}
}
