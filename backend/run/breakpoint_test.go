package run_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"steward/backend/event"
	"steward/backend/run"
)

// TestBreakCommand: a person adds a breakpoint on a tool while the run is
// paused ("pause before this tool" in the graph); the run then pauses before
// the next call of that tool. The breakpoint is recorded in the log, so it
// holds after a restart, and unbreak removes it.
func TestBreakCommand(t *testing.T) {
	t.Parallel()
	var probes atomic.Int32
	h := newHarness(t, fixed(scripted(t, `{"turns": [
		{"tool_calls": [{"name": "list_dir"}]},
		{"tool_calls": [{"name": "probe", "arguments": {"note": "a"}}]},
		{"tool_calls": [{"name": "probe", "arguments": {"note": "b"}}]},
		{"text": "Done."}
	]}`)), probeTool(&probes))
	a := testAgent("probe", "list_dir")
	a.BreakBefore = []string{"list_dir"}
	r := h.start(t, a, "go")
	p := h.waitRun(t, r.ID, 0, run.Paused, "breakpoint before list_dir")

	brk := func(typ, tool string) run.Command { c := cmd(typ); c.Tool = tool; return c }
	// Bad commands: a tool the agent lacks is refused with the reason; tool
	// without break (or break without tool) is invalid.
	if res := h.command(t, r.ID, brk(run.CmdBreak, "write_file")); res.Status != "rejected" || res.Code != run.CodeInvalidState {
		t.Errorf("break on a tool the agent lacks = %+v", res)
	}
	for _, c := range []run.Command{brk(run.CmdPause, "probe"), brk(run.CmdBreak, "")} {
		if _, err := h.svc.Command(context.Background(), r.ID, c); !errors.Is(err, run.ErrInvalid) {
			t.Errorf("Command(%+v) = %v, want ErrInvalid", c, err)
		}
	}

	h.accept(t, r.ID, brk(run.CmdBreak, "probe"))
	h.accept(t, r.ID, brk(run.CmdBreak, "probe")) // again: nothing new is recorded
	h.accept(t, r.ID, brk(run.CmdUnbreak, "list_dir"))
	h.accept(t, r.ID, cmd(run.CmdContinue))
	p = h.waitRun(t, r.ID, p.LastSeq, run.Paused, "breakpoint before probe")
	if diff := cmp.Diff(toolNext("probe", `{"note":"a"}`), nextOf(t, p)); diff != "" {
		t.Errorf("next (-want +got):\n%s", diff)
	}
	if probes.Load() != 0 {
		t.Errorf("probe ran %d times before its breakpoint", probes.Load())
	}

	// After a restart the breakpoint holds: it is in the log.
	h2 := h.restart(t)
	if n, err := h2.svc.Recover(context.Background()); err != nil || n != 1 {
		t.Fatalf("Recover = %d, %v", n, err)
	}
	// Wait for the recovered pause itself, so the continue is not taken
	// before it (the breakpoint would then stop before probe "a" again).
	p = h2.waitRun(t, r.ID, p.LastSeq, run.Paused, "recovered")
	h2.accept(t, r.ID, cmd(run.CmdContinue))
	p = h2.waitRun(t, r.ID, p.LastSeq, run.Paused, "breakpoint before probe")
	if diff := cmp.Diff(toolNext("probe", `{"note":"b"}`), nextOf(t, p)); diff != "" {
		t.Errorf("next after the restart (-want +got):\n%s", diff)
	}
	h2.accept(t, r.ID, brk(run.CmdUnbreak, "probe"))
	h2.accept(t, r.ID, cmd(run.CmdContinue))
	if end := h2.waitEnd(t, r.ID, 5*time.Second); end.Status != string(run.Completed) || probes.Load() != 2 {
		t.Errorf("run = %+v after %d probes", end, probes.Load())
	}
	evs := h2.events(t, r.ID)
	checkLog(t, evs)
	var lists [][]string
	for _, ev := range evs {
		if ev.Type == event.RunBreakpoints {
			lists = append(lists, decode[event.RunBreakpointsData](t, ev).BreakBefore)
		}
	}
	if diff := cmp.Diff([][]string{{"list_dir", "probe"}, {"probe"}, {}}, lists); diff != "" {
		t.Errorf("run.breakpoints (-want +got):\n%s", diff)
	}
}
