package run_test

import (
	"strings"
	"testing"
	"time"

	"steward/backend/agent"
	"steward/backend/event"
	"steward/backend/redact"
	"steward/backend/run"
	"steward/backend/tools/mcp"
	"steward/backend/tools/mcp/mcptest"
)

// An MCP call's progress is logged as tool.progress events on its node,
// between its tool.executing and its node.finished, throttled: the server
// sends 60 reports over about 0.6 s, and the log holds a few, at least
// 250 ms apart but for the last, which is the server's last report. Every
// report is either written or counted as skipped. The message is the
// server's text, redacted like a tool's output.
func TestMCPProgressIsLoggedOnTheCallThrottled(t *testing.T) {
	t.Parallel()
	const count = 60
	const secret = "fixture-api-token-0123456789"
	rec := &recording{next: scripted(t, `{"turns": [
		{"tool_calls": [{"name": "mcp__fx__progress", "arguments": {"count": 60, "every_ms": 10, "message": "copying with `+secret+`"}}]},
		{"text": "Done."}
	]}`)}
	h := newHarness(t, fixed(rec))
	m := mcp.New(mcp.Options{Servers: map[string]mcp.Server{"fx": mcptest.Stdio(map[string]string{"API_TOKEN": secret})}, Logf: t.Logf})
	for _, src := range m.Sources() {
		if err := h.reg.AddSource(src); err != nil {
			t.Fatal(err)
		}
	}
	h.reg.AddRunEnder(m)
	h.svc = h.service(t, func(c *run.Config) { c.Redact = redact.NewLive(m.Secrets).String })
	ag := testAgent(mcp.Pattern("fx"))
	ag.Mode = agent.ModeAuto
	r := h.start(t, ag, "use the server")
	end := h.waitEnd(t, r.ID, 10*time.Second)
	if end.Status != string(run.Completed) {
		t.Fatalf("run ended %s (%s)", end.Status, end.Reason)
	}
	evs := h.events(t, r.ID)
	checkLog(t, evs)
	var call string // the progress call's node
	executing, finished := false, false
	var got []event.ToolProgressData
	var at []time.Time // when each was written, as the store stamped it
	skipped := 0
	var took time.Duration // the call, as its node.finished says
	for _, ev := range evs {
		switch {
		case ev.Type == event.NodeStarted && decode[event.NodeStartedData](t, ev).Tool == "mcp__fx__progress":
			call = ev.NodeID
		case ev.Type == event.ToolExecuting && ev.NodeID == call:
			executing = true
		case ev.Type == event.NodeFinished && ev.NodeID == call:
			finished = true
			d := decode[event.NodeFinishedData](t, ev)
			if d.Status != event.NodeSucceeded {
				t.Errorf("the call finished %+v", d)
			}
			took = time.Duration(d.DurationMS) * time.Millisecond
		case ev.Type == event.ToolProgress:
			if ev.NodeID != call || !executing || finished {
				t.Errorf("seq %d: tool.progress on %q, not between the call's tool.executing and node.finished", ev.Seq, ev.NodeID)
			}
			d := decode[event.ToolProgressData](t, ev)
			if strings.Contains(string(ev.Data), secret) || !strings.HasPrefix(d.Message, "copying with [REDACTED:") {
				t.Errorf("seq %d: message not redacted: %s", ev.Seq, ev.Data)
			}
			if d.Total != count {
				t.Errorf("seq %d: total %v, want %d", ev.Seq, d.Total, count)
			}
			if len(got) > 0 && d.Progress <= got[len(got)-1].Progress {
				t.Errorf("seq %d: progress %v after %v", ev.Seq, d.Progress, got[len(got)-1].Progress)
			}
			got = append(got, d)
			at = append(at, time.UnixMilli(ev.TS))
			skipped += d.Skipped
		}
	}
	// One at once, one per 250 ms after it, and the last at the end: a
	// slow machine stretches the call, and the bound with it.
	if most := int(took/(250*time.Millisecond)) + 2; len(got) < 2 || len(got) > most {
		t.Fatalf("%d tool.progress events of %d reports in %v, want 2 to %d: %+v", len(got), count, took, most, got)
	}
	if last := got[len(got)-1]; last.Progress != count {
		t.Errorf("the last event says %v, want the last report, %d", last.Progress, count)
	}
	if len(got)+skipped != count {
		t.Errorf("%d events and %d skipped, want %d reports in all", len(got), skipped, count)
	}
	// The last may follow closely: it is written when the call ends.
	for i := 1; i < len(at)-1; i++ {
		if gap := at[i].Sub(at[i-1]); gap < 200*time.Millisecond {
			t.Errorf("events %d and %d are %v apart, want 250 ms (less the store's commit delay)", i-1, i, gap)
		}
	}
}
