package run_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"steward/backend/agent"
	"steward/backend/inbox"
	"steward/backend/policy"
	"steward/backend/run"
	"steward/backend/store"
	"steward/backend/tool"
)

// execArgs are the arguments of the test's exec tool.
type execArgs struct {
	Command string `json:"command"`
}

// execTool stands for a shell: risk exec, key argument its command line.
func execTool() tool.Tool {
	return tool.Must(tool.New("run_command", "Runs nothing; stands for a shell.", tool.RiskExec,
		func(_ context.Context, _ tool.Env, a execArgs) (tool.Result, error) {
			return tool.Result{Output: "ran " + a.Command}, nil
		}))
}

// twentyCalls is a scripted run of 20 tool calls, one per turn: 8 reads,
// 8 writes (4 of them to one file) and 4 commands.
func twentyCalls() string {
	var turns []string
	call := func(name, args string) {
		turns = append(turns, `{"tool_calls": [{"name": "`+name+`", "arguments": `+args+`}]}`)
	}
	for i := range 4 {
		call("list_dir", `{"path": "."}`)
		call("read_file", `{"path": "seed.txt"}`)
		call("write_file", fmt.Sprintf(`{"path": "notes/%d.txt", "content": "n"}`, i))
		call("write_file", `{"path": "log.txt", "content": "l"}`)
		call("run_command", fmt.Sprintf(`{"command": "go test ./pkg%d"}`, i))
	}
	turns = append(turns, `{"text": "Done."}`)
	return `{"turns": [` + strings.Join(turns, ",\n") + `]}`
}

// TestPromptsPerMode counts the approvals a person is asked for in a
// scripted 20-call run under each permission mode, answering each as it
// comes: plainly, or "approve always in this run" for any argument. The
// figures go in the closing note of issue 4 (go test -run
// TestPromptsPerMode -v ./backend/run/).
func TestPromptsPerMode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		mode       string
		always     bool // answer "approve always in this run, any argument"
		unattended bool
		want       int
		wantRan    int // calls that ran
	}{
		{mode: agent.ModeAsk, want: 12, wantRan: 20},
		{mode: agent.ModeAsk, always: true, want: 2, wantRan: 20},
		{mode: agent.ModeEdits, want: 4, wantRan: 20},
		{mode: agent.ModePlan, want: 0, wantRan: 8},
		{mode: agent.ModeAuto, want: 0, wantRan: 20},
		{mode: agent.ModeAsk, unattended: true, want: 0, wantRan: 8},
	}
	for _, tc := range tests {
		name := tc.mode
		if tc.always {
			name += " approve-always"
		}
		if tc.unattended {
			name += " unattended"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, fixed(scripted(t, twentyCalls())), execTool())
			h.cfg.Grants = h.st
			h.svc = h.service(t, nil)
			h.writeFile(t, "seed.txt", "seed")
			a := testAgent("list_dir", "read_file", "write_file", "run_command")
			a.Mode, a.MaxSteps = policy.Mode(tc.mode), 30
			r, err := h.svc.Start(context.Background(), run.StartParams{Agent: a, Instructions: "work", Workspace: h.ws, Unattended: tc.unattended})
			if err != nil {
				t.Fatal(err)
			}
			prompts := 0
			deadline := time.Now().Add(20 * time.Second)
			for {
				if got := h.get(t, r.ID); run.Status(got.Status).Terminal() {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the run did not end")
				}
				its, err := h.st.ListInteractions(context.Background(), store.InteractionFilter{RunID: r.ID, Status: "pending"})
				if err != nil {
					t.Fatal(err)
				}
				for _, it := range its {
					d := inbox.Decision{Decision: "approve", Source: "test"}
					if tc.always {
						d.Scope, d.AnyArgument = store.ScopeRun, true
					}
					if _, err := h.in.Answer(context.Background(), it.ID, d); err != nil {
						t.Fatal(err)
					}
					prompts++
				}
				time.Sleep(2 * time.Millisecond)
			}
			end := h.waitEnd(t, r.ID, 5*time.Second)
			evs := h.events(t, r.ID)
			checkLog(t, evs)
			ran := countType(evs, "tool.executing")
			t.Logf("mode %-5s always=%-5v unattended=%-5v: %2d prompts for 20 calls, %2d ran", tc.mode, tc.always, tc.unattended, prompts, ran)
			if end.Status != string(run.Completed) || prompts != tc.want || ran != tc.wantRan {
				t.Errorf("run %s: %d prompts, %d ran; want %d prompts, %d ran", end.Status, prompts, ran, tc.want, tc.wantRan)
			}
		})
	}
}
