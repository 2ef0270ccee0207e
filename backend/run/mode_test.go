package run_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"steward/backend/agent"
	"steward/backend/event"
	"steward/backend/llm"
	"steward/backend/policy"
	"steward/backend/run"
)

// TestModesAndRules runs the file tools under a permission mode and rules
// and checks what the policy decided, what the model was offered and what it
// was told.
func TestModesAndRules(t *testing.T) {
	t.Parallel()
	write := func(path string) string {
		return `{"turns": [
			{"text": "Writing.", "tool_calls": [{"name": "write_file", "arguments": {"path": "` + path + `", "content": "hello"}}]},
			{"text": "Finished."}
		]}`
	}
	tests := []struct {
		name       string
		script     string
		agentMode  string
		agentRules []policy.Rule
		p          run.StartParams // Mode and Rules of the run
		global     []policy.Rule
		wantEffect event.Effect
		wantReason string
		wantFile   string // "" means the file must not exist
		file       string
		wantTools  []string // offered in the first request
		wantRecord []event.Rule
	}{
		{
			name: "mode edits writes without asking", script: write("out.txt"), agentMode: agent.ModeEdits, file: "out.txt",
			wantEffect: "allow", wantReason: "mode edits", wantFile: "hello",
			wantTools: []string{"list_dir", "read_file", "write_file"},
		},
		{
			name: "run overrides the mode", script: write("out.txt"), agentMode: agent.ModeAsk, p: run.StartParams{Mode: agent.ModeAuto}, file: "out.txt",
			wantEffect: "allow", wantReason: "mode auto", wantFile: "hello",
			wantTools: []string{"list_dir", "read_file", "write_file"},
		},
		{
			name: "a deny rule on *.env is told to the model", script: write(".env"), agentMode: agent.ModeEdits, file: ".env",
			agentRules: []policy.Rule{{Effect: policy.Deny, Tool: "write_file", Match: "*.env"}},
			wantEffect: "deny", wantReason: "rule deny write_file *.env (agent)",
			wantTools:  []string{"list_dir", "read_file", "write_file"},
			wantRecord: []event.Rule{{Effect: "deny", Tool: "write_file", Match: "*.env", Source: "agent"}},
		},
		{
			name: "run and global rules apply together", script: write("src/.env"), agentMode: agent.ModeAsk, file: "src/.env",
			p:          run.StartParams{Rules: []policy.Rule{{Effect: policy.Allow, Tool: "write_file", Match: "src/**"}}},
			global:     []policy.Rule{{Effect: policy.Deny, Tool: "*", Match: "**/*.env"}},
			wantEffect: "deny", wantReason: "rule deny * **/*.env (config)",
			wantTools: []string{"list_dir", "read_file", "write_file"},
			wantRecord: []event.Rule{
				{Effect: "allow", Tool: "write_file", Match: "src/**", Source: "run"},
				{Effect: "deny", Tool: "*", Match: "**/*.env", Source: "config"},
			},
		},
		{
			name: "plan mode offers read tools only and denies a write", script: write("out.txt"), agentMode: agent.ModePlan, file: "out.txt",
			wantEffect: "deny", wantReason: "mode plan: write tool write_file is not available while planning",
			wantTools: []string{"list_dir", "read_file"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := &recording{next: scripted(t, tt.script)}
			h := newHarness(t, fixed(rec))
			svc := h.service(t, func(c *run.Config) { c.Rules = tt.global })
			a := testAgent()
			a.Mode, a.Rules = policy.Mode(tt.agentMode), tt.agentRules
			if err := os.MkdirAll(filepath.Join(h.ws, "src"), 0o755); err != nil {
				t.Fatal(err)
			}
			p := tt.p
			// Attended: a call that asked would wait, and the test time out.
			p.Agent, p.Instructions, p.Workspace = a, "write a file", h.ws
			r, err := svc.Start(context.Background(), p)
			if err != nil {
				t.Fatalf("Start: %v", err)
			}
			if done := svc.Done(r.ID); done != nil {
				select {
				case <-done:
				case <-time.After(5 * time.Second):
					t.Fatal("run did not end")
				}
			}
			end, err := h.st.GetRun(context.Background(), r.ID)
			if err != nil || end.Status != "completed" {
				t.Fatalf("run = %+v, %v", end, err)
			}
			wantMode := tt.agentMode
			if tt.p.Mode != "" {
				wantMode = tt.p.Mode
			}
			if end.Mode != wantMode {
				t.Errorf("run mode = %q, want %q", end.Mode, wantMode)
			}

			var decided []event.PolicyDecidedData
			for _, ev := range h.events(t, r.ID) {
				switch ev.Type {
				case event.PolicyDecided:
					var d event.PolicyDecidedData
					if err := json.Unmarshal(ev.Data, &d); err != nil {
						t.Fatal(err)
					}
					decided = append(decided, d)
				case event.RunCreated:
					var d event.RunCreatedData
					if err := json.Unmarshal(ev.Data, &d); err != nil {
						t.Fatal(err)
					}
					var spec agent.Agent
					if err := json.Unmarshal(d.Spec, &spec); err != nil {
						t.Fatal(err)
					}
					if string(d.Mode) != wantMode || string(spec.Mode) != wantMode {
						t.Errorf("run.created mode = %q, spec mode = %q, want %q", d.Mode, spec.Mode, wantMode)
					}
					if !slices.Equal(d.Rules, tt.wantRecord) || len(spec.Rules) != len(tt.wantRecord) {
						t.Errorf("run.created rules = %+v, spec rules = %+v, want %+v", d.Rules, spec.Rules, tt.wantRecord)
					}
				}
			}
			if len(decided) != 1 || decided[0].Effect != tt.wantEffect || !strings.Contains(decided[0].Reason, tt.wantReason) {
				t.Fatalf("policy decisions = %+v, want one %s naming %q", decided, tt.wantEffect, tt.wantReason)
			}

			b, err := os.ReadFile(filepath.Join(h.ws, tt.file))
			switch {
			case tt.wantFile == "" && err == nil:
				t.Errorf("%s was written although denied", tt.file)
			case tt.wantFile != "" && string(b) != tt.wantFile:
				t.Errorf("%s = %q, %v; want %q", tt.file, b, err, tt.wantFile)
			}

			reqs := rec.requests()
			if len(reqs) != 2 {
				t.Fatalf("%d model requests, want 2", len(reqs))
			}
			var offered []string
			for _, ts := range reqs[0].Tools {
				offered = append(offered, ts.Name)
			}
			if !slices.Equal(offered, tt.wantTools) {
				t.Errorf("tools offered = %v, want %v", offered, tt.wantTools)
			}
			if tt.wantEffect == "deny" {
				msgs := reqs[1].Messages
				last := msgs[len(msgs)-1]
				if last.Role != llm.RoleTool || !last.IsError || !strings.Contains(last.Text, tt.wantReason) {
					t.Errorf("the model was told %+v, want an error naming %q", last, tt.wantReason)
				}
			}
		})
	}
}
