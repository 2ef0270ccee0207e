package replay_test

import (
	"context"
	"testing"

	"steward/backend/agent"
	"steward/backend/replay"
	"steward/backend/run"
	"steward/backend/tool"
	"steward/backend/tools/fs"
)

// A recorded run called a tool this machine does not have (a project MCP
// server's, which only the recorded run's workspace offered): replayed
// with the recorded results, its call is decided and answered from the
// recording, as the recorded run's was, and nothing runs for real; the
// replay does not diverge.
func TestReplayOfAToolThisMachineLacks(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	type echoArgs struct {
		Text string `json:"text"`
	}
	withProject := tool.NewRegistry()
	for _, tl := range append(fs.Tools(), tool.Must(tool.New("mcp__proj__echo", "echoes", tool.RiskExec, func(ctx context.Context, env tool.Env, a echoArgs) (tool.Result, error) {
		return tool.Result{Output: "echo: " + a.Text}, nil
	}))) {
		if err := withProject.Register(tl); err != nil {
			t.Fatal(err)
		}
	}
	svc := e.service(t, run.Config{Tools: withProject, Models: fixedModels{scripted(t, `{"turns": [
		{"tool_calls": [{"name": "mcp__proj__echo", "arguments": {"text": "from the project"}}]},
		{"text": "Done: {{last_tool_output}}"}
	]}`)}})
	a := agent.Agent{ID: "ag_test", Name: "tester", Provider: agent.ProviderScript, Tools: []string{"read_file", "mcp__proj__*"}, Mode: agent.ModeAuto, MaxSteps: 10}
	r, err := svc.Start(context.Background(), run.StartParams{Agent: a, Instructions: "echo", Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if src := e.wait(t, svc, r.ID); src.Status != string(run.Completed) {
		t.Fatalf("source run ended %s (%s)", src.Status, src.Error)
	}
	_, rec := exported(t, e, r.ID)
	rep, p, calls := replayedCounting(t, e, rec, t.TempDir(), true, replay.Options{})
	if d, ok := p.Divergence(); ok {
		t.Fatalf("diverged: %+v", d)
	}
	if rep.Status != string(run.Completed) || calls != 0 {
		t.Errorf("replay ended %s (%s) with %d real calls", rep.Status, rep.Error, calls)
	}
	// With live tools it is this machine's unknown tool: nothing runs.
	live, _, calls := replayedCounting(t, e, rec, t.TempDir(), false, replay.Options{})
	if calls != 0 || live.Status != string(run.Completed) {
		t.Errorf("live replay: %s, %d calls", live.Status, calls)
	}
}
