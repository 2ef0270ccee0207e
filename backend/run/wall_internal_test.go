package run

import (
	"encoding/json"
	"testing"
	"time"

	"steward/backend/event"
)

// TestWallTimeLeavesOutTheWaitForAPerson: a tool call whose approval was
// answered ten minutes after it was asked counts only its own time against
// the wall-time budget, as the budget's documentation says. Before, the
// node's whole time (the wait included) was counted, and a run with
// max_wall_time 5m paused for its budget after one slow answer.
func TestWallTimeLeavesOutTheWaitForAPerson(t *testing.T) {
	t.Parallel()
	const minute = int64(time.Minute / time.Millisecond)
	start := int64(1_700_000_000_000)
	var seq int64
	ev := func(at int64, typ event.Type, node string, data any) event.Event {
		seq++
		e := event.New("run_w", typ, node, data)
		e.Seq, e.TS = seq, at
		return e
	}
	call := event.ToolCall{ID: "call_1", Name: "write_file", Arguments: json.RawMessage(`{}`)}
	log := []event.Event{
		ev(start, event.RunCreated, "", event.RunCreatedData{Limits: &event.Limits{MaxWallTimeMS: 5 * minute}}),
		ev(start, event.NodeStarted, "n1", event.NodeStartedData{Kind: event.KindAgent}),
		ev(start, event.NodeStarted, "n2", event.NodeStartedData{Kind: event.KindLLM}),
		ev(start+1000, event.NodeFinished, "n2", event.NodeFinishedData{Status: event.NodeSucceeded, ToolCalls: []event.ToolCall{call}, DurationMS: 1000}),
		ev(start+1000, event.NodeStarted, "n3", event.NodeStartedData{Kind: event.KindTool, Tool: call.Name, CallID: call.ID, Arguments: call.Arguments}),
		ev(start+1010, event.ApprovalRequested, "n3", event.ApprovalRequestedData{InteractionID: "ia_1", Tool: call.Name, Arguments: call.Arguments}),
		ev(start+1010+10*minute, event.ApprovalDecided, "n3", event.ApprovalDecidedData{InteractionID: "ia_1", Decision: event.DecisionApprove}),
		ev(start+1060+10*minute, event.NodeFinished, "n3", event.NodeFinishedData{Status: event.NodeSucceeded, Output: "ok", DurationMS: 60 + 10*minute}),
	}
	f := NewFold()
	for _, e := range log {
		f.Apply(e)
	}
	if f.workMS != 1060 {
		t.Errorf("work = %d ms, want 1060 (the model's 1000 and the call's own 60)", f.workMS)
	}
	r := &runState{Fold: *f}
	if out := r.spentOut(f.limits); out != "" {
		t.Errorf("after 1 s of work and 10 min of waiting for a person, the budget says %q", out)
	}
}
