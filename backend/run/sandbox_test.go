package run_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"steward/backend/agent"
	"steward/backend/event"
	"steward/backend/inbox"
	"steward/backend/run"
	"steward/backend/sandbox"
	"steward/backend/sandbox/sandboxtest"
	"steward/backend/tool"
)

// shellLike is an exec tool whose program runs in the sandbox, as
// run_command's does; it keeps the sandbox settings of every call.
type shellLike struct {
	mu   sync.Mutex
	seen []sandbox.Settings
}

func (s *shellLike) tools() []tool.Tool {
	return []tool.Tool{
		tool.Must(tool.New("sandboxed_cmd", "Runs nothing; stands for run_command.", tool.RiskExec,
			func(_ context.Context, env tool.Env, _ struct{}) (tool.Result, error) {
				s.mu.Lock()
				s.seen = append(s.seen, env.Sandbox)
				s.mu.Unlock()
				return tool.Result{Output: "ran"}, nil
			})).Sandboxed(),
		tool.Must(tool.New("plain_exec", "Runs nothing; an exec tool the sandbox does not concern.", tool.RiskExec,
			func(context.Context, tool.Env, struct{}) (tool.Result, error) { return tool.Result{Output: "ran"}, nil })),
	}
}

func (s *shellLike) calls() []sandbox.Settings {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]sandbox.Settings(nil), s.seen...)
}

func callScript(name string) string {
	return `{"turns": [{"tool_calls": [{"name": "` + name + `", "arguments": {}}]}, {"text": "Done."}]}`
}

// TestSandboxDecidesCommands: in permission mode auto a sandboxed command
// runs without asking where the sandbox works; where it cannot, mode auto
// asks about every command and says why, mode on denies them, mode off runs
// them; run.created says what became of the sandbox, and the tool is told
// the run's settings, overrides included.
func TestSandboxDecidesCommands(t *testing.T) {
	t.Parallel()
	working := sandbox.New(sandbox.Options{})
	broken := sandbox.New(sandbox.Options{Bwrap: "/nonexistent/bwrap"})
	const why = "bubblewrap is not at /nonexistent/bwrap"
	tests := []struct {
		name      string
		sb        run.Sandbox
		tool      string
		agentMode event.SandboxMode // the agent's sandbox setting
		p         run.StartParams
		effect    event.Effect // the policy's
		reason    string
		created   event.Sandbox
		seen      sandbox.Settings // by the tool, when it ran
	}{
		{name: "auto where it works", sb: working, tool: "sandboxed_cmd", effect: "allow", reason: "mode auto",
			created: event.Sandbox{Mode: "auto", Network: "off", Confined: true}, seen: sandbox.Settings{Mode: "auto", Network: "off"}},
		{name: "auto where it cannot work asks", sb: broken, tool: "sandboxed_cmd", effect: "ask", reason: "not sandboxed: the command sandbox cannot work here: " + why,
			created: event.Sandbox{Mode: "auto", Network: "off", Reason: "the command sandbox cannot work here: " + why}, seen: sandbox.Settings{Mode: "auto", Network: "off"}},
		{name: "no sandbox configured is a machine without one", sb: nil, tool: "sandboxed_cmd", effect: "ask", reason: "no sandbox was set up",
			created: event.Sandbox{Mode: "auto", Network: "off", Reason: "the command sandbox cannot work here: no sandbox was set up for commands"}, seen: sandbox.Settings{Mode: "auto", Network: "off"}},
		{name: "on where it cannot work denies", sb: broken, tool: "sandboxed_cmd", agentMode: "on", effect: "deny", reason: "sandbox on: sandboxed_cmd cannot run unsandboxed",
			created: event.Sandbox{Mode: "on", Network: "off", Reason: "the command sandbox cannot work here: " + why}},
		{name: "off runs unconfined without asking", sb: broken, tool: "sandboxed_cmd", agentMode: "off", effect: "allow", reason: "mode auto",
			created: event.Sandbox{Mode: "off", Network: "off", Reason: "the sandbox is off for this run: commands see what the server's user sees"}, seen: sandbox.Settings{Mode: "off", Network: "off"}},
		{name: "the run overrides the agent", sb: broken, tool: "sandboxed_cmd", agentMode: "on", p: run.StartParams{Sandbox: "off", SandboxNetwork: "on"}, effect: "allow", reason: "mode auto",
			created: event.Sandbox{Mode: "off", Network: "on", Reason: "the sandbox is off for this run: commands see what the server's user sees"}, seen: sandbox.Settings{Mode: "off", Network: "on"}},
		{name: "an exec tool outside the sandbox is not concerned", sb: broken, tool: "plain_exec", effect: "allow", reason: "mode auto",
			created: event.Sandbox{Mode: "auto", Network: "off", Reason: "the command sandbox cannot work here: " + why}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.sb == working {
				sandboxtest.Require(t, working)
			}
			sh := &shellLike{}
			h := newHarness(t, fixed(scripted(t, callScript(tt.tool))), sh.tools()...)
			h.svc = h.service(t, func(c *run.Config) {
				if tt.sb != nil {
					c.Sandbox = tt.sb
				}
			})
			a := testAgent(tt.tool)
			a.Mode, a.Sandbox = agent.ModeAuto, tt.agentMode
			p := tt.p
			p.Agent, p.Instructions, p.Workspace = a, "run it", h.ws
			r, err := h.svc.Start(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			if tt.effect == "ask" {
				it := h.pending(t, r.ID)
				if !strings.Contains(it.Reason, tt.reason) {
					t.Errorf("approval reason %q, want %q", it.Reason, tt.reason)
				}
				if _, err := h.in.Answer(context.Background(), it.ID, inbox.Decision{Decision: "approve", Source: "web"}); err != nil {
					t.Fatal(err)
				}
			}
			h.waitEnd(t, r.ID, 5*time.Second)
			var created event.RunCreatedData
			var decided []event.PolicyDecidedData
			for _, ev := range h.events(t, r.ID) {
				switch ev.Type {
				case event.RunCreated:
					created = decode[event.RunCreatedData](t, ev)
				case event.PolicyDecided:
					decided = append(decided, decode[event.PolicyDecidedData](t, ev))
				}
			}
			if created.Sandbox == nil || *created.Sandbox != tt.created {
				t.Errorf("run.created sandbox %+v, want %+v", created.Sandbox, tt.created)
			}
			if len(decided) != 1 || decided[0].Effect != tt.effect || !strings.Contains(decided[0].Reason, tt.reason) {
				t.Fatalf("decisions %+v, want one %s with %q", decided, tt.effect, tt.reason)
			}
			var want []sandbox.Settings
			if tt.seen != (sandbox.Settings{}) {
				want = []sandbox.Settings{tt.seen}
			}
			if got := sh.calls(); len(got) != len(want) || (len(want) == 1 && got[0] != want[0]) {
				t.Errorf("the tool ran with %+v, want %+v", got, want)
			}
		})
	}
}

func TestSandboxOverrideIsChecked(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fixed(scripted(t, `{"turns": [{"text": "Done."}]}`)))
	for _, p := range []run.StartParams{{Sandbox: "maybe"}, {SandboxNetwork: "loopback"}} {
		p.Agent, p.Instructions, p.Workspace = testAgent(), "x", h.ws
		_, err := h.svc.Start(context.Background(), p)
		if !errors.Is(err, run.ErrInvalid) || !strings.Contains(err.Error(), "is not one of") {
			t.Errorf("Start(%q, %q) = %v, want ErrInvalid naming the setting", p.Sandbox, p.SandboxNetwork, err)
		}
	}
}
