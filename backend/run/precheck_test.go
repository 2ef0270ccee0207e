package run_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"steward/backend/event"
	"steward/backend/inbox"
	"steward/backend/store"
	"steward/backend/tools/fs"
)

// A call its tool would refuse anyway (the edit's text is not in the file)
// is not put to the person: the model reads the tool's refusal at once.
func TestCallRefusedAnywayIsNotAsked(t *testing.T) {
	t.Parallel()
	rec := &recording{next: scripted(t, `{"turns": [
		{"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]},
		{"tool_calls": [{"name": "edit_file", "arguments": {"path": "a.txt", "old_string": "a wasp", "new_string": "a bee"}}]},
		{"text": "Done: {{last_tool_output}}"}]}`)}
	h := newHarness(t, fixed(rec))
	h.writeFile(t, "a.txt", "a fly\n")
	r := h.start(t, testAgent("read_file", "edit_file"), "change a")
	evs := h.completed(t, r.ID)
	if n := h.approvals(t, r.ID); n != 0 {
		t.Errorf("%d approvals opened for a call the tool refuses anyway", n)
	}
	var refused *event.NodeFinishedData
	for _, ev := range evs {
		if ev.Type == event.NodeFinished {
			if d := decode[event.NodeFinishedData](t, ev); d.Code == fs.CodeNoMatch {
				refused = &d
			}
		}
	}
	if refused == nil || refused.Status != event.NodeFailed || !strings.Contains(refused.Output, "a.txt") {
		t.Fatalf("the edit finished %+v, want failed with the tool's no_match", refused)
	}
	if last := rec.requests(); !strings.Contains(last[len(last)-1].Messages[len(last[len(last)-1].Messages)-1].Text, "old_string") {
		t.Errorf("the model did not read the refusal: %+v", last[len(last)-1].Messages)
	}
	if got := h.content(t, "a.txt"); got != "a fly\n" {
		t.Errorf("a.txt = %q", got)
	}
}

// The calls of one turn are asked about together; one that an earlier
// call of the turn may make possible is asked, and checked again at its
// turn: still refused then, its approval is withdrawn and the model reads
// the refusal; made possible, it runs as approved.
func TestCallRefusedAtItsTurnWithdrawsItsApproval(t *testing.T) {
	t.Parallel()
	rec := &recording{next: scripted(t, `{"turns": [
		{"tool_calls": [
			{"name": "write_file", "arguments": {"path": "new.txt", "content": "one two\n"}},
			{"name": "edit_file", "arguments": {"path": "new.txt", "old_string": "one", "new_string": "1"}},
			{"name": "edit_file", "arguments": {"path": "new.txt", "old_string": "three", "new_string": "3"}}]},
		{"text": "Done."}]}`)}
	h := newHarness(t, fixed(rec))
	r := h.start(t, testAgent("write_file", "edit_file"), "write and edit")
	var its []store.Interaction
	waitFor(t, 5*time.Second, "three approvals", func() bool {
		its, _ = h.st.ListInteractions(context.Background(), store.InteractionFilter{RunID: r.ID, Status: "pending"})
		return len(its) == 3
	})
	for _, it := range its {
		if strings.Contains(it.Arguments, "three") {
			continue // left for the engine to withdraw
		}
		if _, err := h.in.Answer(context.Background(), it.ID, inbox.Decision{Decision: "approve", Source: "web"}); err != nil {
			t.Fatal(err)
		}
	}
	h.completed(t, r.ID)
	if got := h.content(t, "new.txt"); got != "1 two\n" {
		t.Errorf("new.txt = %q, want the first edit made", got)
	}
	all, err := h.st.ListInteractions(context.Background(), store.InteractionFilter{RunID: r.ID})
	if err != nil {
		t.Fatal(err)
	}
	withdrawn := 0
	for _, it := range all {
		if it.Source == inbox.SourceWithdrawn {
			withdrawn++
			if !strings.Contains(it.Arguments, "three") || !strings.Contains(it.Feedback, "would be refused") {
				t.Errorf("withdrawn %+v", it)
			}
		}
	}
	if withdrawn != 1 {
		t.Errorf("%d approvals withdrawn, want the third's", withdrawn)
	}
	status := h.nodeStatus(t, r.ID)
	failed := 0
	for _, st := range status {
		if st == event.NodeFailed {
			failed++
		}
	}
	if failed != 1 {
		t.Errorf("node statuses %v: want the third call failed", status)
	}
}

// An approval shows what the call would change: its tool's preview, the
// diff against the file as it is when the person is asked, with context
// and the file's true line numbers; the inbox's projection holds it too.
func TestApprovalCarriesTheCallsPreview(t *testing.T) {
	t.Parallel()
	rec := &recording{next: scripted(t, `{"turns": [
		{"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]},
		{"tool_calls": [{"name": "edit_file", "arguments": {"path": "a.txt", "old_string": "six\n", "new_string": "6\n"}}]},
		{"text": "Done."}]}`)}
	h := newHarness(t, fixed(rec))
	h.writeFile(t, "a.txt", "one\ntwo\nthree\nfour\nfive\nsix\nseven\n")
	r := h.start(t, testAgent("read_file", "edit_file"), "change a")
	it := h.pending(t, r.ID)
	const want = "--- a/a.txt\n+++ b/a.txt\n@@ -3,5 +3,5 @@\n three\n four\n five\n-six\n+6\n seven\n"
	if !strings.Contains(it.Preview, `"diff":`) {
		t.Fatalf("the pending interaction has no preview: %q", it.Preview)
	}
	if !strings.Contains(it.Schema, `"old_string"`) {
		t.Errorf("the pending interaction has no schema: %q", it.Schema)
	}
	var found bool
	for _, ev := range h.events(t, r.ID) {
		if ev.Type == event.ApprovalRequested {
			d := decode[event.ApprovalRequestedData](t, ev)
			found = d.Preview != nil && d.Preview.Diff == want
			if !found {
				t.Errorf("approval.requested preview %+v, want diff\n%s", d.Preview, want)
			}
			// The schema the edit form is built from: edit_file's own.
			if !strings.Contains(string(d.Schema), `"new_string"`) {
				t.Errorf("approval.requested schema %s, want edit_file's", d.Schema)
			}
		}
	}
	if !found {
		t.Fatal("no approval.requested")
	}
	if _, err := h.in.Answer(context.Background(), it.ID, inbox.Decision{Decision: "approve", Source: "web"}); err != nil {
		t.Fatal(err)
	}
	h.completed(t, r.ID)
	if got := h.content(t, "a.txt"); got != "one\ntwo\nthree\nfour\nfive\n6\nseven\n" {
		t.Errorf("a.txt = %q", got)
	}
}
