package run_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"steward/backend/event"
	"steward/backend/inbox"
	"steward/backend/run"
	"steward/backend/store"
)

// twoWrites writes a.txt twice with the same key argument, then b.txt.
const twoWrites = `{"turns": [
	{"tool_calls": [{"name": "write_file", "arguments": {"path": "a.txt", "content": "one"}}]},
	{"tool_calls": [{"name": "write_file", "arguments": {"path": "a.txt", "content": "two"}}]},
	{"text": "Finished."}
]}`

// oneWrite writes a.txt once.
const oneWrite = `{"turns": [
	{"tool_calls": [{"name": "write_file", "arguments": {"path": "a.txt", "content": "one"}}]},
	{"text": "Finished."}
]}`

// grantHarness is a harness whose service looks up the store's grants.
func grantHarness(t *testing.T, src string) *harness {
	t.Helper()
	h := newHarness(t, fixed(scripted(t, src)))
	h.cfg.Grants = h.st
	h.svc = h.service(t, nil)
	return h
}

// grantLog returns the run's policy decisions and approval answers.
func grantLog(t *testing.T, h *harness, runID string) ([]event.PolicyDecidedData, []event.ApprovalDecidedData) {
	t.Helper()
	evs := h.events(t, runID)
	checkLog(t, evs)
	var pol []event.PolicyDecidedData
	var ans []event.ApprovalDecidedData
	for _, ev := range evs {
		switch ev.Type {
		case event.PolicyDecided:
			pol = append(pol, decode[event.PolicyDecidedData](t, ev))
		case event.ApprovalDecided:
			ans = append(ans, decode[event.ApprovalDecidedData](t, ev))
		}
	}
	return pol, ans
}

func (h *harness) approvals(t *testing.T, runID string) int {
	t.Helper()
	its, err := h.st.ListInteractions(context.Background(), store.InteractionFilter{RunID: runID})
	if err != nil {
		t.Fatal(err)
	}
	return len(its)
}

// remove removes the workspace's file name, if it is there.
func (h *harness) remove(t *testing.T, name string) {
	t.Helper()
	if err := os.Remove(filepath.Join(h.ws, name)); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
}

func (h *harness) content(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(h.ws, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestGrantApproveAlwaysRun(t *testing.T) {
	t.Parallel()
	h := grantHarness(t, twoWrites)
	r := h.start(t, testAgent(), "write")
	it := h.pending(t, r.ID)
	if _, err := h.in.Answer(context.Background(), it.ID, inbox.Decision{Decision: "approve", Source: "web", Scope: store.ScopeRun}); err != nil {
		t.Fatalf("Answer: %v", err)
	}
	end := h.waitEnd(t, r.ID, 5*time.Second)
	if end.Status != "completed" {
		t.Fatalf("run = %+v", end)
	}
	if n := h.approvals(t, r.ID); n != 1 {
		t.Errorf("approvals = %d, want 1: the second write runs on the grant", n)
	}
	if got := h.content(t, "a.txt"); got != "two" {
		t.Errorf("a.txt = %q, want two", got)
	}
	pol, ans := grantLog(t, h, r.ID)
	gid := "gr_" + it.ID
	if len(ans) != 1 || ans[0].Scope != "run" || ans[0].GrantID != gid {
		t.Errorf("approval.decided = %+v, want scope run and grant %s", ans, gid)
	}
	if len(pol) != 2 || pol[0].Effect != "ask" || pol[1].Effect != "allow" || !strings.Contains(pol[1].Reason, "grant run "+gid) {
		t.Errorf("policy decisions = %+v, want ask then allow naming grant %s", pol, gid)
	}
	grants, err := h.st.ListGrants(context.Background())
	if err != nil || len(grants) != 1 || grants[0].RunID != r.ID || grants[0].Match != "a.txt" || grants[0].Effect != "allow" {
		t.Errorf("grants = %+v, %v", grants, err)
	}

	// A run grant holds in its run only. (The file is gone first: a
	// write of a file the run has not read is refused before anyone is
	// asked.)
	h.remove(t, "a.txt")
	r2 := h.start(t, testAgent(), "write again")
	it2 := h.pending(t, r2.ID)
	if _, err := h.in.Answer(context.Background(), it2.ID, inbox.Decision{Decision: "deny", Source: "web"}); err != nil {
		t.Fatal(err)
	}
	h.pending(t, r2.ID) // the second write asks too: a plain answer saves nothing
	h.accept(t, r2.ID, cmd(run.CmdCancel))
	h.waitEnd(t, r2.ID, 5*time.Second)
}

func TestGrantApproveAlwaysAgent(t *testing.T) {
	t.Parallel()
	h := grantHarness(t, oneWrite)
	ag := testAgent()
	r := h.start(t, ag, "write")
	it := h.pending(t, r.ID)
	if _, err := h.in.Answer(context.Background(), it.ID, inbox.Decision{Decision: "approve", Source: "web", Scope: store.ScopeAgent}); err != nil {
		t.Fatalf("Answer: %v", err)
	}
	h.waitEnd(t, r.ID, 5*time.Second)

	// A new run of the same agent writes without asking, unattended too.
	for _, unattended := range []bool{false, true} {
		r2, err := h.svc.Start(context.Background(), run.StartParams{Agent: ag, Instructions: "write", Workspace: h.ws, Unattended: unattended})
		if err != nil {
			t.Fatal(err)
		}
		if end := h.waitEnd(t, r2.ID, 5*time.Second); end.Status != "completed" {
			t.Fatalf("run = %+v", end)
		}
		if n := h.approvals(t, r2.ID); n != 0 {
			t.Errorf("unattended=%v: approvals = %d, want 0", unattended, n)
		}
		pol, _ := grantLog(t, h, r2.ID)
		if len(pol) != 1 || pol[0].Effect != "allow" || !strings.Contains(pol[0].Reason, "grant agent gr_"+it.ID) {
			t.Errorf("unattended=%v: policy decisions = %+v", unattended, pol)
		}
	}

	// Another agent still asks.
	other := testAgent()
	other.ID, other.Name = "ag_other", "other"
	h.remove(t, "a.txt")
	r3 := h.start(t, other, "write")
	h.pending(t, r3.ID)
	h.accept(t, r3.ID, cmd(run.CmdCancel))
	h.waitEnd(t, r3.ID, 5*time.Second)

	// Revoked, the agent asks again.
	if err := h.st.DeleteGrant(context.Background(), "gr_"+it.ID); err != nil {
		t.Fatal(err)
	}
	r4 := h.start(t, ag, "write")
	h.pending(t, r4.ID)
	h.accept(t, r4.ID, cmd(run.CmdCancel))
	h.waitEnd(t, r4.ID, 5*time.Second)
}

func TestGrantDenyAlways(t *testing.T) {
	t.Parallel()
	h := grantHarness(t, twoWrites)
	r := h.start(t, testAgent(), "write")
	it := h.pending(t, r.ID)
	if _, err := h.in.Answer(context.Background(), it.ID, inbox.Decision{Decision: "deny", Feedback: "not that file", Source: "web", Scope: store.ScopeEverywhere}); err != nil {
		t.Fatalf("Answer: %v", err)
	}
	end := h.waitEnd(t, r.ID, 5*time.Second)
	if end.Status != "completed" {
		t.Fatalf("run = %+v", end)
	}
	if n := h.approvals(t, r.ID); n != 1 {
		t.Errorf("approvals = %d, want 1: the second write is denied on the grant", n)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "a.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a.txt was written: %v", err)
	}
	pol, ans := grantLog(t, h, r.ID)
	gid := "gr_" + it.ID
	if len(ans) != 1 || ans[0].Scope != "everywhere" || ans[0].GrantID != gid || ans[0].Feedback != "not that file" {
		t.Errorf("approval.decided = %+v", ans)
	}
	if len(pol) != 2 || pol[1].Effect != "deny" || !strings.Contains(pol[1].Reason, "rule deny write_file a.txt (grant everywhere "+gid+")") {
		t.Errorf("policy decisions = %+v, want the second denied naming grant %s", pol, gid)
	}
	if st := h.nodeStatus(t, r.ID); st["n6"] != event.NodeDenied {
		t.Errorf("node statuses = %v, want n6 denied", st)
	}
}

func TestGrantAnswerInvalid(t *testing.T) {
	t.Parallel()
	h := grantHarness(t, oneWrite)
	ag := testAgent()
	ag.ID = ""
	r := h.start(t, ag, "write")
	it := h.pending(t, r.ID)
	for _, d := range []inbox.Decision{
		{Decision: "approve", Scope: "forever"},
		{Decision: "approve", AnyArgument: true},
		{Decision: "approve", Scope: store.ScopeAgent}, // the run has no agent id
	} {
		if _, err := h.in.Answer(context.Background(), it.ID, d); !errors.Is(err, inbox.ErrInvalid) {
			t.Errorf("Answer(%+v) = %v, want ErrInvalid", d, err)
		}
	}
	if gs, _ := h.st.ListGrants(context.Background()); len(gs) != 0 {
		t.Errorf("grants after invalid answers = %+v", gs)
	}
	// Any argument: the grant matches every call of the tool.
	if _, err := h.in.Answer(context.Background(), it.ID, inbox.Decision{Decision: "approve", Scope: store.ScopeRun, AnyArgument: true}); err != nil {
		t.Fatal(err)
	}
	h.waitEnd(t, r.ID, 5*time.Second)
	if gs, _ := h.st.ListGrants(context.Background()); len(gs) != 1 || gs[0].Match != "" {
		t.Errorf("grants = %+v, want one with an empty match", gs)
	}
}
