package run_test

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"steward/backend/agent"
	"steward/backend/event"
	"steward/backend/inbox"
	"steward/backend/llm/script"
	"steward/backend/policy"
	"steward/backend/store"
	"steward/backend/tool"
)

// denyEnv is the rule docs/configuration.md gives as its example.
var denyEnv = policy.Rule{Effect: policy.Deny, Tool: "*", Match: "**/*.env"}

// oneCall is a script that makes one tool call, then ends.
func oneCall(t *testing.T, name string, args any) string {
	t.Helper()
	b, err := json.Marshal(script.Script{Turns: []script.Turn{
		{ToolCalls: []script.ToolCall{{Name: name, Arguments: mustJSON(t, args)}}},
		{Text: "Finished."},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// toolOutcome returns the node.finished of the run's only node of tool
// name, and its policy decision.
func toolOutcome(t *testing.T, evs []event.Event, name string) (event.NodeFinishedData, event.PolicyDecidedData) {
	t.Helper()
	node := ""
	var pol event.PolicyDecidedData
	for _, ev := range evs {
		switch {
		case ev.Type == event.NodeStarted && decode[event.NodeStartedData](t, ev).Tool == name:
			node = ev.NodeID
		case ev.Type == event.PolicyDecided && ev.NodeID == node && node != "":
			pol = decode[event.PolicyDecidedData](t, ev)
		}
	}
	if node == "" {
		t.Fatalf("no %s node in %v", name, trace(t, evs))
	}
	return finished(t, evs, node), pol
}

// TestPolicyDecidesOnWhatTheToolTouches pins the ways past a deny rule on
// **/*.env that the rule used to miss: a symlink to .env read and written,
// a grep over the workspace, a quoted and escaped patch path, a git header
// with no ---/+++ lines. Each call runs in mode edits, through the real
// registry, on a real workspace.
func TestPolicyDecidesOnWhatTheToolTouches(t *testing.T) {
	t.Parallel()
	const secret = "API_KEY=hunter2"
	tests := []struct {
		name string
		tool string
		args any
		// denied: the call must be refused by the policy; otherwise it runs
		// and its output must not show the secret.
		denied bool
		reason string // what the decision's reason names, when denied
		check  func(t *testing.T, ws, output string)
	}{
		{name: "read_file through a symlink", tool: "read_file", args: map[string]any{"path": "env-alias.txt"}, denied: true,
			reason: "on .env via env-alias.txt"},
		{name: "write_file through a symlink", tool: "write_file", args: map[string]any{"path": "env-alias.txt", "content": "pwned"}, denied: true,
			reason: "on .env via env-alias.txt"},
		{name: "write_file through a symlinked folder", tool: "write_file", args: map[string]any{"path": "cfg/x.env", "content": "pwned"}, denied: true,
			reason: "**/*.env"},
		{name: "read_file through a folder link and ..", tool: "read_file", args: map[string]any{"path": "cfg/../.env"}, denied: true,
			reason: "**/*.env"},
		{name: "grep over the workspace", tool: "grep", args: map[string]any{"pattern": "API_KEY"},
			check: func(t *testing.T, _, out string) {
				if !strings.Contains(out, "withheld by a rule") {
					t.Errorf("grep output does not say that something was withheld:\n%s", out)
				}
				if !strings.Contains(out, "notes.txt") {
					t.Errorf("grep output lost the file it may show:\n%s", out)
				}
			}},
		{name: "glob over the workspace", tool: "glob", args: map[string]any{"pattern": "**/*"},
			check: func(t *testing.T, _, out string) {
				if strings.Contains(out, ".env") || !strings.Contains(out, "withheld by a rule") {
					t.Errorf("glob output shows .env, or does not say it withheld it:\n%s", out)
				}
			}},
		{name: "list_dir of the root", tool: "list_dir", args: map[string]any{},
			check: func(t *testing.T, _, out string) {
				if strings.Contains(out, ".env") || strings.Contains(out, "env-alias.txt") || !strings.Contains(out, "2 entries withheld by a rule") {
					t.Errorf("list_dir shows .env or its link, or does not count them as withheld:\n%s", out)
				}
			}},
		{name: "apply_patch with a quoted, escaped path", tool: "apply_patch", denied: true, reason: "on conf/.env",
			args:  map[string]any{"patch": "--- /dev/null\n+++ \"b/conf/\\056env\"\n@@ -0,0 +1 @@\n+X=1\n"},
			check: func(t *testing.T, ws, _ string) { absent(t, filepath.Join(ws, "conf", ".env")) }},
		{name: "apply_patch with a git header and no ---/+++ lines", tool: "apply_patch", denied: true, reason: "on sub/.env",
			args:  map[string]any{"patch": "diff --git a/sub/.env b/sub/.env\nnew file mode 100644\nindex 0000000..e69de29\n"},
			check: func(t *testing.T, ws, _ string) { absent(t, filepath.Join(ws, "sub", ".env")) }},
		{name: "apply_patch through a symlink", tool: "apply_patch", denied: true, reason: "on .env via env-alias.txt",
			args: map[string]any{"patch": "--- a/env-alias.txt\n+++ b/env-alias.txt\n@@ -1 +1 @@\n-" + secret + "\n+pwned\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, fixed(scripted(t, oneCall(t, tt.tool, tt.args))))
			h.writeFile(t, ".env", secret+"\n")
			h.writeFile(t, "notes.txt", "API_KEY is read from .env\n")
			if err := os.Symlink(".env", filepath.Join(h.ws, "env-alias.txt")); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(filepath.Join(h.ws, "real"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("real", filepath.Join(h.ws, "cfg")); err != nil {
				t.Fatal(err)
			}
			ag := testAgent("read_file", "write_file", "grep", "glob", "list_dir", "apply_patch")
			ag.Mode, ag.Rules = agent.ModeEdits, []policy.Rule{denyEnv}
			r := h.start(t, ag, "try")
			end := h.waitEnd(t, r.ID, 10*time.Second)
			if end.Status != "completed" {
				t.Fatalf("run = %+v", end)
			}
			evs := h.events(t, r.ID)
			checkLog(t, evs)
			fin, pol := toolOutcome(t, evs, tt.tool)
			if tt.denied {
				if fin.Status != event.NodeDenied || pol.Effect != "deny" {
					t.Fatalf("%s = %s (policy %+v), want denied by the rule; output:\n%s", tt.tool, fin.Status, pol, fin.Output)
				}
				if !strings.Contains(pol.Reason, tt.reason) {
					t.Errorf("reason %q does not name %q", pol.Reason, tt.reason)
				}
			} else if fin.Status != event.NodeSucceeded {
				t.Fatalf("%s = %s: %s", tt.tool, fin.Status, fin.Output)
			}
			if strings.Contains(fin.Output, "hunter2") {
				t.Errorf("the output shows the secret:\n%s", fin.Output)
			}
			if got := h.content(t, ".env"); got != secret+"\n" {
				t.Errorf(".env = %q, want it unchanged", got)
			}
			absent(t, filepath.Join(h.ws, "real", "x.env"))
			if tt.check != nil {
				tt.check(t, h.ws, fin.Output)
			}
		})
	}
}

func absent(t *testing.T, p string) {
	t.Helper()
	if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s exists (%v), want it absent", p, err)
	}
}

// TestPolicyRechecksTouchesBeforeTheCall pins the decision on a path that
// changes before the call runs: a call of the same turn makes the path a
// symlink to a denied file after both were decided. The write is refused
// and creates nothing.
func TestPolicyRechecksTouchesBeforeTheCall(t *testing.T) {
	t.Parallel()
	link := tool.Must(tool.New("make_link", "Makes a symlink.", tool.RiskExec,
		func(_ context.Context, env tool.Env, a struct {
			Name   string `json:"name"`
			Target string `json:"target"`
		}) (tool.Result, error) {
			return tool.Result{Output: "linked"}, os.Symlink(a.Target, filepath.Join(env.Workspace, a.Name))
		}))
	src := mustJSON(t, script.Script{Turns: []script.Turn{
		{ToolCalls: []script.ToolCall{
			{Name: "make_link", Arguments: mustJSON(t, map[string]string{"name": "a.txt", "target": "conf/.env"})},
			{Name: "write_file", Arguments: mustJSON(t, map[string]string{"path": "a.txt", "content": "X=1"})},
		}},
		{Text: "Finished."},
	}})
	h := newHarness(t, fixed(scripted(t, string(src))), link)
	if err := os.Mkdir(filepath.Join(h.ws, "conf"), 0o755); err != nil {
		t.Fatal(err)
	}
	ag := testAgent("make_link", "write_file")
	ag.Mode, ag.Rules = agent.ModeAuto, []policy.Rule{denyEnv}
	r := h.start(t, ag, "try")
	if end := h.waitEnd(t, r.ID, 10*time.Second); end.Status != "completed" {
		t.Fatalf("run = %+v", end)
	}
	evs := h.events(t, r.ID)
	checkLog(t, evs)
	fin, _ := toolOutcome(t, evs, "write_file")
	if fin.Status == event.NodeSucceeded || !strings.Contains(fin.Output, "conf/.env") {
		t.Errorf("write_file = %s: %s; want it refused, naming conf/.env", fin.Status, fin.Output)
	}
	absent(t, filepath.Join(h.ws, "conf", ".env"))
}

// TestWritesThatRunProgramsAskAsExec pins that in mode edits a file tool's
// write of a file whose content git (or a shell, an editor) later runs
// asks for approval with risk exec, and that other writes still run.
func TestWritesThatRunProgramsAskAsExec(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, tool string
		args       any
		asks       bool
	}{
		{"gitattributes", "write_file", map[string]string{"path": ".gitattributes", "content": "* filter=x\n"}, true},
		{"gitattributes in a folder", "write_file", map[string]string{"path": "sub/.gitattributes", "content": "* filter=x\n"}, true},
		{"a repository's HEAD at the root", "write_file", map[string]string{"path": "HEAD", "content": "ref: refs/heads/main\n"}, true},
		{"a repository's config at the root", "write_file", map[string]string{"path": "config", "content": "[core]\n\tworktree = .\n"}, true},
		{"gitmodules by patch", "apply_patch", map[string]string{"patch": "--- /dev/null\n+++ b/.gitmodules\n@@ -0,0 +1 @@\n+[submodule \"x\"]\n"}, true},
		{"envrc", "write_file", map[string]string{"path": "tools/.envrc", "content": "touch /tmp/x\n"}, true},
		{"husky hook", "write_file", map[string]string{"path": ".husky/pre-commit", "content": "touch /tmp/x\n"}, true},
		{"vscode tasks", "write_file", map[string]string{"path": ".vscode/tasks.json", "content": "{}"}, true},
		{"an ordinary file", "write_file", map[string]string{"path": "src/config.go", "content": "package src\n"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, fixed(scripted(t, oneCall(t, tt.tool, tt.args))))
			ag := testAgent("write_file", "apply_patch")
			ag.Mode = agent.ModeEdits
			r := h.start(t, ag, "write")
			if !tt.asks {
				if end := h.waitEnd(t, r.ID, 10*time.Second); end.Status != "completed" || h.approvals(t, r.ID) != 0 {
					t.Fatalf("run = %+v with %d approvals, want it completed without asking", end, h.approvals(t, r.ID))
				}
				return
			}
			it := h.pending(t, r.ID)
			if it.Risk != string(tool.RiskExec) {
				t.Errorf("approval risk = %q, want exec", it.Risk)
			}
			var req event.ApprovalRequestedData
			for _, ev := range h.events(t, r.ID) {
				if ev.Type == event.ApprovalRequested {
					req = decode[event.ApprovalRequestedData](t, ev)
				}
			}
			if req.Risk != tool.RiskExec || !strings.Contains(req.Reason, "exec") {
				t.Errorf("approval.requested = %+v, want risk exec and a reason that says so", req)
			}
			h.accept(t, r.ID, cmd("cancel"))
			h.waitEnd(t, r.ID, 10*time.Second)
		})
	}
}

// TestApproveAlwaysHoldsForTheFile pins the grant an "approve always"
// saves: it is for the real path of the file the call wrote (the target of
// a link, not the link), and it lifts the ask of a write that counts as
// exec, for that file only.
func TestApproveAlwaysHoldsForTheFile(t *testing.T) {
	t.Parallel()
	calls := func(pairs ...[2]string) string {
		var turns []script.Turn
		for _, p := range pairs {
			turns = append(turns, script.Turn{ToolCalls: []script.ToolCall{{Name: "write_file", Arguments: mustJSON(t, map[string]string{"path": p[0], "content": p[1]})}}})
		}
		return string(mustJSON(t, script.Script{Turns: append(turns, script.Turn{Text: "Finished."})}))
	}
	tests := []struct {
		name, src, grant string
		mode             policy.Mode
		link             bool
	}{
		{"a link's target", calls([2]string{"alias.txt", "one"}, [2]string{"target.txt", "two"}), "target.txt", agent.ModeAsk, true},
		{"an exec write", calls([2]string{".gitattributes", "* text\n"}, [2]string{".gitattributes", "* text=auto\n"}), ".gitattributes", agent.ModeEdits, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := grantHarness(t, tt.src)
			if tt.link {
				if err := os.Symlink("target.txt", filepath.Join(h.ws, "alias.txt")); err != nil {
					t.Fatal(err)
				}
			}
			ag := testAgent()
			ag.Mode = tt.mode
			r := h.start(t, ag, "write")
			it := h.pending(t, r.ID)
			if _, err := h.in.Answer(context.Background(), it.ID, inbox.Decision{Decision: "approve", Source: "web", Scope: store.ScopeRun}); err != nil {
				t.Fatal(err)
			}
			if end := h.waitEnd(t, r.ID, 10*time.Second); end.Status != "completed" {
				t.Fatalf("run = %+v", end)
			}
			if n := h.approvals(t, r.ID); n != 1 {
				t.Errorf("approvals = %d, want 1: the second write runs on the grant", n)
			}
			grants, err := h.st.ListGrants(context.Background())
			if err != nil || len(grants) != 1 || grants[0].Match != tt.grant {
				t.Errorf("grants = %+v, %v; want one for %s", grants, err, tt.grant)
			}
		})
	}
}
