package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"steward/backend/event"
	"steward/backend/tool"
	"steward/backend/tools/mcp"
	"steward/backend/tools/mcp/mcptest"
)

// reports collects what a Manager reports of its servers (tool.Env.Server)
// with the time of each report.
type reports struct {
	mu  sync.Mutex
	got []event.MCPServerData
	at  []time.Time
}

func (r *reports) add(d event.MCPServerData) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got, r.at = append(r.got, d), append(r.at, time.Now())
}

func (r *reports) all() []event.MCPServerData {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]event.MCPServerData(nil), r.got...)
}

// states are the reports as "state/attempt" lines.
func (r *reports) states() []string {
	var out []string
	for _, d := range r.all() {
		out = append(out, fmt.Sprintf("%s/%d", d.State, d.Attempt))
	}
	return out
}

func (r *reports) String() string { b, _ := json.Marshal(r.all()); return string(b) }

// starts reads the times the fixture wrote to its StartsEnv file.
func starts(t *testing.T, path string) []time.Time {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []time.Time
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			t.Fatalf("start line %q", line)
		}
		ns, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, time.Unix(0, ns))
	}
	return out
}

// A server that exits mid-call is reported crashed, with its exit status
// and its last words, and never a secret of its configuration; the run's
// next call waits out the backoff, starts it again (restarted, connected)
// and succeeds; a call it answered starts the backoff anew.
func TestCrashIsReportedAndTheNextCallRestartsAfterTheBackoff(t *testing.T) {
	t.Parallel()
	const secret = "ghp-fixture-secret-0123456789"
	srv := mcptest.Stdio(map[string]string{"API_TOKEN": secret, mcptest.SayEnv: "fixture: my token is " + secret})
	reg, _, _ := setup(t, map[string]mcp.Server{"fx": srv}, nil)
	rep := &reports{}
	env := tool.Env{RunID: "run_1", Server: rep.add}

	res := call(t, reg, env, "mcp__fx__exit", `{}`)
	if !res.IsError || res.Code != mcp.CodeUnavailable || !strings.Contains(res.Output, "crashed (exit status 3)") ||
		!strings.Contains(res.Output, "the run's next call starts it again, in 500ms at the soonest") {
		t.Errorf("the call that crashed: %+v", res)
	}
	got := rep.all()
	if len(got) != 2 {
		t.Fatalf("reports %s, want connected and crashed", rep)
	}
	if c := got[0]; c != (event.MCPServerData{Server: "fx", State: event.MCPConnected, Attempt: 1, Era: "2026-07-28", Transport: mcp.TypeStdio}) {
		t.Errorf("connected: %+v", c)
	}
	crash := got[1]
	if crash.Server != "fx" || crash.State != event.MCPCrashed || crash.Reason != "exit status 3" || crash.RetryInMS != 500 ||
		!strings.Contains(crash.Stderr, "exiting in the middle of a call") {
		t.Errorf("crashed: %+v", crash)
	}
	if !strings.Contains(crash.Stderr, "[REDACTED") {
		t.Errorf("the crash's stderr %q does not show where the secret was taken out", crash.Stderr)
	}
	crashedAt := rep.at[1]

	res = call(t, reg, env, "mcp__fx__echo", `{"text":"again"}`)
	if res.IsError || res.Output != "echo: again" {
		t.Fatalf("the next call: %+v (reports %s)", res, rep)
	}
	if s := rep.states(); strings.Join(s, " ") != "connected/1 crashed/0 restarted/2 connected/2" {
		t.Errorf("reports %v", s)
	}
	// The crash is reported (and its time taken here) a moment after the
	// time of the next start is set: a few milliseconds of slack, no more.
	if d := rep.at[2].Sub(crashedAt); d < 500*time.Millisecond-20*time.Millisecond {
		t.Errorf("restarted %s after the crash, within the backoff of 500ms", d)
	}

	// Answered: the next crash backs off 500 ms again, not 1 s.
	call(t, reg, env, "mcp__fx__exit", `{}`)
	if last := rep.all()[len(rep.all())-1]; last.State != event.MCPCrashed || last.RetryInMS != 500 {
		t.Errorf("the crash after a call was answered: %+v, want a backoff of 500 ms", last)
	}
	for _, d := range rep.all() {
		b, _ := json.Marshal(d)
		if strings.Contains(string(b), secret) {
			t.Errorf("a report holds the secret: %s", b)
		}
	}
}

// A server that cannot start again is not started faster than the
// backoff allows (0.5 s, 1 s, 2 s...): a call waits for the next start when
// its deadline leaves time for it, and a call with too short a deadline is
// told when the server is started again, without a start.
func TestRestartsBackOff(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "starts")
	// Protocol legacy: with auto, each start that fails is tried again at
	// once with initialize only, and the starts would come in pairs.
	srv := mcptest.Stdio(map[string]string{mcptest.StartsEnv: file, mcptest.OnceEnv: "1"})
	srv.Protocol = mcp.ProtocolLegacy
	reg, _, _ := setup(t, map[string]mcp.Server{"fx": srv}, nil)
	reg.Timeout = 10 * time.Second
	if _, ok := reg.Lookup("mcp__fx__echo"); !ok { // the listing: the only start that works
		t.Fatal("the listing failed")
	}
	rep := &reports{}
	env := tool.Env{RunID: "run_1", Server: rep.add}
	for i := range 3 {
		res := call(t, reg, env, "mcp__fx__echo", `{"text":"x"}`)
		if !res.IsError || res.Code != mcp.CodeUnavailable || !strings.Contains(res.Output, "refusing to start again") {
			t.Errorf("call %d: %+v", i+1, res)
		}
	}
	if s := rep.states(); strings.Join(s, " ") != "failed/1 restarted/2 failed/2 restarted/3 failed/3" {
		t.Errorf("reports %v", s)
	}
	var retries []int64
	for _, d := range rep.all() {
		if d.State == event.MCPFailed {
			retries = append(retries, d.RetryInMS)
			if !strings.Contains(d.Reason, "could not be started") {
				t.Errorf("failed: %+v", d)
			}
		}
	}
	if fmt.Sprint(retries) != "[500 1000 2000]" {
		t.Errorf("backoffs %v, want [500 1000 2000]", retries)
	}
	at := starts(t, file)
	if len(at) != 4 {
		t.Fatalf("%d starts, want 4 (the listing, then 3 for the run)", len(at))
	}
	for i, want := range []time.Duration{500 * time.Millisecond, time.Second} {
		if d := at[i+2].Sub(at[i+1]); d < want {
			t.Errorf("start %d came %s after the one before: faster than the backoff of %s", i+3, d, want)
		}
	}
	// 2 s to wait, and 3 s of deadline: no time to start and call after.
	if err := reg.SetTimeout("mcp__fx__pid", 3*time.Second); err != nil {
		t.Fatal(err)
	}
	begin := time.Now()
	res := call(t, reg, env, "mcp__fx__pid", `{}`)
	if !res.IsError || res.Code != mcp.CodeUnavailable || !strings.Contains(res.Output, "MCP server fx could not be started; it is started again in") {
		t.Errorf("a call with a short deadline while backing off: %+v", res)
	}
	if d := time.Since(begin); d > time.Second {
		t.Errorf("it took %s: it waited", d)
	}
	if n := len(starts(t, file)); n != 4 {
		t.Errorf("%d starts after it, want 4", n)
	}
}

// A server that exits between two calls is found gone at the next one,
// reported crashed with its exit status, and started again for it.
func TestServerGoneBetweenCallsIsRestartedForTheNext(t *testing.T) {
	t.Parallel()
	reg, _, _ := setup(t, map[string]mcp.Server{"fx": mcptest.Stdio(nil)}, nil)
	rep := &reports{}
	env := tool.Env{RunID: "run_1", Server: rep.add}
	if res := call(t, reg, env, "mcp__fx__exit_soon", `{}`); res.IsError {
		t.Fatalf("exit_soon: %+v", res)
	}
	time.Sleep(300 * time.Millisecond)
	res := call(t, reg, env, "mcp__fx__echo", `{"text":"after"}`)
	if res.IsError || res.Output != "echo: after" {
		t.Errorf("the call after the server exited: %+v (reports %s)", res, rep)
	}
	if s := rep.states(); strings.Join(s, " ") != "connected/1 crashed/0 restarted/2 connected/2" {
		t.Errorf("reports %v", s)
	}
	if got := rep.all(); len(got) < 2 || got[1].Reason != "exit status 4" || !strings.Contains(got[1].Stderr, "exiting between calls") {
		t.Errorf("crashed: %s", rep)
	}
}

// A call of a hung server ends at its deadline with a tool error, and is
// cancelled on the server (notifications/cancelled); a server that no
// longer answers at all after a call ran out of time is stopped, reported
// crashed and started again for the next call.
func TestTimedOutCallIsCancelledAndAHungServerRestarted(t *testing.T) {
	t.Parallel()
	cancels := filepath.Join(t.TempDir(), "cancels")
	reg, _, _ := setup(t, map[string]mcp.Server{"fx": mcptest.Stdio(map[string]string{mcptest.CancelsEnv: cancels})}, nil)
	for _, name := range []string{"mcp__fx__hang", "mcp__fx__freeze"} {
		if err := reg.SetTimeout(name, 700*time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
	rep := &reports{}
	env := tool.Env{RunID: "run_1", Server: rep.add}
	if res := call(t, reg, env, "mcp__fx__hang", `{}`); res.Code != tool.CodeTimeout {
		t.Errorf("hang: %+v, want %s", res, tool.CodeTimeout)
	}
	var said string
	for deadline := time.Now().Add(mcptest.HangFor + 2*time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		b, _ := os.ReadFile(cancels)
		if said = strings.TrimSpace(string(b)); said != "" {
			break
		}
	}
	if said != "cancelled" {
		t.Errorf("the server's handler ended %q, want cancelled: the client did not send notifications/cancelled", said)
	}
	// The server answers a ping: a slow tool, not a hung server.
	if res := call(t, reg, env, "mcp__fx__echo", `{"text":"alive"}`); res.Output != "echo: alive" {
		t.Errorf("after the hang: %+v", res)
	}
	if s := rep.states(); strings.Join(s, " ") != "connected/1" {
		t.Errorf("reports %v after a slow call, want the server kept", s)
	}
	if res := call(t, reg, env, "mcp__fx__freeze", `{}`); res.Code != tool.CodeTimeout {
		t.Errorf("freeze: %+v, want %s", res, tool.CodeTimeout)
	}
	res := call(t, reg, env, "mcp__fx__echo", `{"text":"thawed"}`)
	if res.Output != "echo: thawed" {
		t.Errorf("after the freeze: %+v (reports %s)", res, rep)
	}
	if s := rep.states(); strings.Join(s, " ") != "connected/1 crashed/0 restarted/2 connected/2" {
		t.Errorf("reports %v", s)
	}
	if got := rep.all(); len(got) < 2 || !strings.Contains(got[1].Reason, "hung: no answer to a ping") {
		t.Errorf("crashed: %s", rep)
	}
}

// A call waiting out the backoff when its run ends starts nothing: the
// server would outlive the run, with no session to stop it.
func TestRunEndingDuringTheBackoffStartsNothing(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "starts")
	srv := mcptest.Stdio(map[string]string{mcptest.StartsEnv: file, mcptest.OnceEnv: "1"})
	srv.Protocol = mcp.ProtocolLegacy
	reg, _, _ := setup(t, map[string]mcp.Server{"fx": srv}, nil)
	env := tool.Env{RunID: "run_1"}
	if res := call(t, reg, env, "mcp__fx__echo", `{"text":"x"}`); res.Code != mcp.CodeUnavailable {
		t.Fatalf("the first call: %+v", res)
	}
	n := len(starts(t, file))
	done := make(chan tool.Result, 1)
	go func() {
		res, err := reg.Call(context.Background(), env, "mcp__fx__echo", json.RawMessage(`{"text":"y"}`))
		if err != nil {
			res = tool.Result{Output: "system error: " + err.Error()}
		}
		done <- res
	}()
	time.Sleep(100 * time.Millisecond) // the call waits for the server's next start, 500 ms after the failure
	if _, err := reg.EndRun(context.Background(), env); err != nil {
		t.Fatal(err)
	}
	res := <-done
	if !res.IsError || !strings.Contains(res.Output, "the run has ended") {
		t.Errorf("the waiting call: %+v", res)
	}
	if got := len(starts(t, file)); got != n {
		t.Errorf("%d starts after the run ended, want none", got-n)
	}
}
