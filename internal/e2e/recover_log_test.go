package e2e

// Helpers of the kill-and-recover test (recover_test.go) that read a
// run's log: its terminal and recovery statuses, and its comparison with
// what the test saw before the kill.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"steward/backend/event"
)

func krTerminal(status string) bool {
	return status == "completed" || status == "failed" || status == "cancelled"
}

// krRecoveryStatus is the first run.status the new process wrote, if it is
// a pause or the end.
func krRecoveryStatus(post []event.Event) *event.RunStatusData {
	for _, ev := range post {
		if ev.Type == event.RunStatus {
			var d event.RunStatusData
			_ = ev.Decode(&d)
			if d.Status == "paused" || krTerminal(d.Status) {
				return &d
			}
		}
	}
	return nil
}

// krFinalRecorded reports whether the last model call of pre answered with
// no tool calls: the run had nothing left to do.
func krFinalRecorded(v *krRun, pre []event.Event) bool {
	final := false
	for _, ev := range pre {
		if ev.Type != event.NodeFinished || v.nodes[ev.NodeID].Kind != event.KindLLM {
			continue
		}
		var d event.NodeFinishedData
		_ = ev.Decode(&d)
		if d.Status == event.NodeSucceeded {
			final = len(d.ToolCalls) == 0
		}
	}
	return final
}

// krCompare finds the events the WebSocket delivered (with ts below limit)
// that the log lacks or holds differently.
func krCompare(v *krRun, log []event.Event, limit int64) []string {
	var msgs []string
	for _, ev := range v.seen {
		if ev.TS >= limit {
			msgs = append(msgs, fmt.Sprintf("event %d (%s) was delivered before the kill but has ts %d, after the restart", ev.Seq, ev.Type, ev.TS))
			continue
		}
		if ev.Seq < 1 || ev.Seq > int64(len(log)) {
			msgs = append(msgs, fmt.Sprintf("event %d (%s %s) was delivered but is not in the log (last seq %d)", ev.Seq, ev.Type, ev.NodeID, int64(len(log))))
			continue
		}
		got := log[ev.Seq-1]
		if got.Seq != ev.Seq || got.TS != ev.TS || got.Type != ev.Type || got.NodeID != ev.NodeID || !krSameJSON(got.Data, ev.Data) {
			msgs = append(msgs, fmt.Sprintf("event %d was delivered as %s %s %s and is %d %s %s %s in the log", ev.Seq, ev.Type, ev.NodeID, ev.Data, got.Seq, got.Type, got.NodeID, got.Data))
		}
	}
	return msgs
}

func krSameJSON(a, b json.RawMessage) bool {
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

// krCheckLog checks the shape of a finished run's log: dense seqs, every
// node started once and finished exactly once, the run completed with the
// script's final answer.
func krCheckLog(v *krRun, log []event.Event) []string {
	var msgs []string
	started, finished := map[string]int{}, map[string]int{}
	lastStatus, lastText := "", ""
	for i, ev := range log {
		if ev.Seq != int64(i+1) {
			msgs = append(msgs, fmt.Sprintf("seq %d at position %d", ev.Seq, i+1))
		}
		switch ev.Type {
		case event.NodeStarted:
			started[ev.NodeID]++
		case event.NodeFinished:
			if started[ev.NodeID] == 0 {
				msgs = append(msgs, fmt.Sprintf("node %s finished before it started", ev.NodeID))
			}
			finished[ev.NodeID]++
			var d event.NodeFinishedData
			_ = ev.Decode(&d)
			if v.nodes[ev.NodeID].Kind == event.KindLLM && d.Status == event.NodeSucceeded {
				lastText = d.Text
			}
		case event.RunStatus:
			var d event.RunStatusData
			_ = ev.Decode(&d)
			lastStatus = d.Status
		}
	}
	for node, n := range started {
		if n != 1 || finished[node] != 1 {
			msgs = append(msgs, fmt.Sprintf("node %s started %d times and finished %d times", node, n, finished[node]))
		}
	}
	if lastStatus != "completed" || lastText != krFinalText {
		msgs = append(msgs, fmt.Sprintf("the run ended %s with the answer %q", lastStatus, lastText))
	}
	return msgs
}

// krDescribe lists events briefly, for messages.
func krDescribe(evs []event.Event) string {
	if len(evs) == 0 {
		return "no events"
	}
	parts := make([]string, len(evs))
	for i, ev := range evs {
		parts[i] = fmt.Sprintf("%d %s %s %s", ev.Seq, ev.Type, ev.NodeID, ev.Data)
	}
	return strings.Join(parts, "; ")
}
