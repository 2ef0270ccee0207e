package e2e

// The kill-and-recover test (recover_test.go): restarting after a kill,
// and the checks of what the log and the runs hold after each recovery.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"steward/backend/event"
)

// restart waits for the killed server to be gone, starts a new one on the
// same data directory and checks what it made of every run.
func (k *krPoint) restart(ctx context.Context, phase int, old *krServer) (*krServer, error) {
	<-old.exited
	// What the dead process left on disk: a written file must have its
	// tool.executing committed.
	type onDisk struct{ a, b bool }
	files := map[*krRun]onDisk{}
	for _, v := range k.runs {
		_, ea := os.Stat(filepath.Join(v.ws, "a.txt"))
		_, eb := os.Stat(filepath.Join(v.ws, "b.txt"))
		files[v] = onDisk{a: ea == nil, b: eb == nil}
	}
	// Every event the dead process committed has ts ≤ now; every event of
	// the new one comes later. Wait for the next millisecond to separate them.
	deadMS := time.Now().UnixMilli()
	for time.Now().UnixMilli() <= deadMS {
		time.Sleep(100 * time.Microsecond)
	}
	threshold := time.Now().UnixMilli()
	k.threshold = threshold
	srv, err := k.start(phase)
	if err != nil {
		return nil, err
	}
	c := srv.c

	// Runs whose POST the kill cut: created or not.
	var lost []*krRun
	k.mu.Lock()
	for _, v := range k.runs {
		if v.posted && v.id == "" && !v.gone {
			lost = append(lost, v)
		}
	}
	k.mu.Unlock()
	if len(lost) > 0 {
		var body struct {
			Runs []krRunInfo `json:"runs"`
		}
		if err := c.call(ctx, "GET", "/api/v1/runs?limit=1000", nil, &body); err != nil {
			return srv, fmt.Errorf("list runs: %w", err)
		}
		for _, v := range lost {
			for _, r := range body.Runs {
				if r.Instructions == v.instr {
					v.id = r.ID
				}
			}
			if v.id == "" {
				v.gone = true
				k.count(func(t *krTally) { t.notCreated++ })
			}
		}
	}

	for _, v := range k.runs {
		if v.id == "" {
			continue
		}
		if err := k.checkRecovery(ctx, c, phase, v, threshold, files[v].a, files[v].b); err != nil {
			return srv, err
		}
	}
	return srv, nil
}

// checkRecovery checks one run after a restart: the new process's events
// are those with ts ≥ threshold; before them is what the killed one
// committed.
func (k *krPoint) checkRecovery(ctx context.Context, c *krClient, phase int, v *krRun, threshold int64, hasA, hasB bool) error {
	var log, pre, post []event.Event
	preStatus := "queued"
	deadline := time.Now().Add(15 * time.Second)
	for {
		var err error
		log, err = c.events(ctx, v.id)
		if err != nil {
			return fmt.Errorf("run %d: events: %w", v.index, err)
		}
		pre, post = nil, nil
		for _, ev := range log {
			if ev.TS < threshold {
				if len(post) > 0 {
					return fmt.Errorf("run %d: event %d (%s, ts %d) was written before the restart but follows one written after it", v.index, ev.Seq, ev.Type, ev.TS)
				}
				pre = append(pre, ev)
			} else {
				post = append(post, ev)
			}
		}
		for _, ev := range pre {
			if ev.Type == event.RunStatus {
				var d event.RunStatusData
				_ = ev.Decode(&d)
				preStatus = d.Status
			}
		}
		if krTerminal(preStatus) || krRecoveryStatus(post) != nil {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("run %d (%s) was %s at the kill and did not recover within 15 s: after the restart it has %s",
				v.index, v.id, preStatus, krDescribe(post))
		}
		time.Sleep(10 * time.Millisecond)
	}

	k.mu.Lock()
	defer k.mu.Unlock()
	for _, ev := range log {
		if ev.Type == event.NodeStarted {
			var d event.NodeStartedData
			_ = ev.Decode(&d)
			v.nodes[ev.NodeID] = d
		}
	}
	// No committed event is lost.
	lost := krCompare(v, log, threshold)
	for _, msg := range lost {
		k.errs = append(k.errs, fmt.Sprintf("phase %d: run %d: %s", phase, v.index, msg))
	}
	k.count(func(t *krTally) { t.lost += len(lost) })

	v.pause = nil
	if krTerminal(preStatus) {
		if len(post) > 0 {
			k.errs = append(k.errs, fmt.Sprintf("phase %d: run %d had ended (%s) but the restart added %s", phase, v.index, preStatus, krDescribe(post)))
		}
		return nil
	}

	// The run was active: the restart must have recovered it, and done
	// nothing on its own.
	st := krRecoveryStatus(post)
	v.pause = st
	k.count(func(t *krTally) { t.recovered++ })
	for _, ev := range post {
		switch {
		case ev.Type == event.ToolExecuting:
			k.errs = append(k.errs, fmt.Sprintf("phase %d: run %d: the restart executed node %s on its own", phase, v.index, ev.NodeID))
		case ev.Type == event.NodeStarted && (v.nodes[ev.NodeID].Kind == event.KindLLM || v.nodes[ev.NodeID].Kind == event.KindTool):
			k.errs = append(k.errs, fmt.Sprintf("phase %d: run %d: the restart started %s node %s on its own", phase, v.index, v.nodes[ev.NodeID].Kind, ev.NodeID))
		}
	}
	// What was in flight is interrupted: a model call that started and did
	// not finish, a tool call whose tool.executing committed and that did
	// not finish.
	finishedPre, finishedPost := map[string]event.NodeFinishedData{}, map[string]event.NodeFinishedData{}
	executing := map[string]bool{}
	for _, ev := range log {
		switch ev.Type {
		case event.NodeFinished:
			var d event.NodeFinishedData
			_ = ev.Decode(&d)
			if ev.TS < threshold {
				finishedPre[ev.NodeID] = d
			} else {
				finishedPost[ev.NodeID] = d
			}
		case event.ToolExecuting:
			if ev.TS < threshold {
				executing[ev.NodeID] = true
			}
		}
	}
	var interrupted []string
	for _, ev := range pre {
		if ev.Type != event.NodeStarted {
			continue
		}
		n := v.nodes[ev.NodeID]
		if _, done := finishedPre[ev.NodeID]; done {
			continue
		}
		inFlight := n.Kind == event.KindLLM || (n.Kind == event.KindTool && executing[ev.NodeID])
		f, closed := finishedPost[ev.NodeID]
		switch {
		case inFlight && (!closed || f.Status != event.NodeInterrupted):
			k.errs = append(k.errs, fmt.Sprintf("phase %d: run %d: %s node %s was in flight at the kill; after the restart: %+v (closed %v), want interrupted",
				phase, v.index, n.Kind, ev.NodeID, f, closed))
		case inFlight && n.Kind == event.KindLLM:
			k.count(func(t *krTally) { t.interruptedModel++ })
		case inFlight:
			interrupted = append(interrupted, ev.NodeID)
			k.count(func(t *krTally) { t.interruptedTool++ })
		case closed && n.Kind != event.KindAgent:
			k.errs = append(k.errs, fmt.Sprintf("phase %d: run %d: the restart closed %s node %s, which was not in flight: %+v", phase, v.index, n.Kind, ev.NodeID, f))
		}
	}
	// The run waits, paused, for the person; or, when its final answer was
	// already recorded, it is complete.
	switch st.Status {
	case "completed":
		k.count(func(t *krTally) { t.completedOnRestart++ })
		if !krFinalRecorded(v, pre) {
			k.errs = append(k.errs, fmt.Sprintf("phase %d: run %d completed on restart without a final answer in its log", phase, v.index))
		}
	case "paused":
		next := st.Next
		if len(interrupted) > 0 && (next == nil || !next.Interrupted || next.NodeID != interrupted[0]) {
			k.errs = append(k.errs, fmt.Sprintf("phase %d: run %d: tool node %s was interrupted by the kill, but the run waits on %+v", phase, v.index, interrupted[0], next))
		}
		switch {
		case next == nil:
			k.errs = append(k.errs, fmt.Sprintf("phase %d: run %d paused on restart without saying what comes next", phase, v.index))
		case next.Interrupted:
			k.count(func(t *krTally) { t.pausedInterrupted++ })
			if !strings.HasPrefix(st.Reason, "recovered: ") {
				k.count(func(t *krTally) { t.reasonInterr++ })
				k.errs = append(k.errs, fmt.Sprintf("phase %d: run %d paused on an interrupted call with reason %q, want recovered: …", phase, v.index, st.Reason))
			}
			if f, ok := finishedPost[next.NodeID]; !ok && finishedPre[next.NodeID].Status != event.NodeInterrupted || ok && f.Status != event.NodeInterrupted {
				k.errs = append(k.errs, fmt.Sprintf("phase %d: run %d waits on node %s as interrupted, but the log does not say it was", phase, v.index, next.NodeID))
			}
		default:
			if st.Reason != "recovered" {
				k.errs = append(k.errs, fmt.Sprintf("phase %d: run %d paused with reason %q, want recovered", phase, v.index, st.Reason))
			}
			if slices.Contains(interrupted, next.NodeID) {
				k.errs = append(k.errs, fmt.Sprintf("phase %d: run %d: interrupted node %s is next but not marked interrupted", phase, v.index, next.NodeID))
			}
		}
	}
	// A file on disk had its tool.executing committed first.
	for _, f := range []struct {
		on   bool
		call string
	}{{hasA, krCallWriteA}, {hasB, krCallWriteB}} {
		if !f.on {
			continue
		}
		marked := false
		for node := range executing {
			marked = marked || v.nodes[node].CallID == f.call
		}
		if !marked {
			k.errs = append(k.errs, fmt.Sprintf("phase %d: run %d: the file of %s is on disk but its tool.executing was not committed", phase, v.index, f.call))
			k.count(func(t *krTally) { t.unrecorded++ })
		}
	}
	// An approval open at the kill is still open.
	decided := map[string]bool{}
	for _, ev := range pre {
		if ev.Type == event.ApprovalDecided {
			var d event.ApprovalDecidedData
			_ = ev.Decode(&d)
			decided[d.InteractionID] = true
		}
	}
	for _, ev := range pre {
		if ev.Type != event.ApprovalRequested {
			continue
		}
		var d event.ApprovalRequestedData
		_ = ev.Decode(&d)
		if decided[d.InteractionID] {
			continue
		}
		var it struct {
			Interactions []struct {
				ID     string `json:"id"`
				Status string `json:"status"`
			} `json:"interactions"`
		}
		if err := c.call(ctx, "GET", "/api/v1/interactions?run_id="+v.id, nil, &it); err != nil {
			return fmt.Errorf("interactions: %w", err)
		}
		found := false
		for _, i := range it.Interactions {
			if i.ID == d.InteractionID {
				found = true
				if i.Status != "pending" {
					k.errs = append(k.errs, fmt.Sprintf("phase %d: run %d: approval %s was open at the kill and is %s after the restart", phase, v.index, i.ID, i.Status))
				}
			}
		}
		if !found {
			k.errs = append(k.errs, fmt.Sprintf("phase %d: run %d: approval %s vanished", phase, v.index, d.InteractionID))
		}
		k.count(func(t *krTally) { t.openApprovals++ })
	}
	return nil
}

// driveOn answers what the restart left waiting: approvals, then a retry
// for a run paused on an interrupted call (the person's new decision) and a
// continue for any other paused run. A command whose answer the kill cut is
// first sent again with the same command_id, as a client does after a
// reconnection: it applies once, whatever the kill left of it. The new
// command may then find the run already going (rejected, invalid_state).
func (k *krPoint) driveOn(ctx context.Context, s *krSession, phase int) {
	s.approvePending(ctx)
	k.mu.Lock()
	var todo []*krRun
	for _, v := range k.runs {
		if v.id != "" && v.pause != nil && v.pause.Status == "paused" {
			todo = append(todo, v)
		}
	}
	k.mu.Unlock()
	for _, v := range todo {
		resent := false
		k.mu.Lock()
		cut := v.cut
		v.cut = nil
		k.mu.Unlock()
		for _, c := range cut {
			res, ok := k.command(ctx, s, v, c)
			resent = resent || ok && res.Status == "accepted"
		}
		cmd := krCommand{ID: fmt.Sprintf("kr-%d-%d-%d", k.plan.index, phase, v.index), Type: "continue"}
		if n := v.pause.Next; n != nil && n.Interrupted {
			cmd.Type, cmd.NodeID = "retry", n.NodeID
		}
		res, ok := k.command(ctx, s, v, cmd)
		if ok && res.Status != "accepted" && !(resent && res.Code == "invalid_state") {
			k.fail("phase %d: run %d: %s %s: %s %s", phase, v.index, cmd.Type, v.id, res.Code, res.Message)
		}
	}
}

// krCommand is a run command as the API takes it.
type krCommand struct {
	ID     string `json:"command_id"`
	Type   string `json:"type"`
	NodeID string `json:"node_id,omitempty"`
}

type krCommandResult struct {
	Status  string `json:"status"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// command sends c. A retry that was accepted, or whose answer the kill cut,
// is a decision to execute its call once more. ok is false when there is no
// answer.
func (k *krPoint) command(ctx context.Context, s *krSession, v *krRun, c krCommand) (res krCommandResult, ok bool) {
	if s.srv.dead() {
		k.mu.Lock()
		v.cut = append(v.cut, c) // never sent: sent next time
		k.mu.Unlock()
		return res, false
	}
	err := s.srv.c.call(ctx, "POST", "/api/v1/runs/"+v.id+"/commands", c, &res)
	switch {
	case err != nil && !s.srv.dead():
		k.fail("run %d: %s: %v", v.index, c.Type, err)
		return res, false
	case err != nil:
		k.mu.Lock()
		v.cut = append(v.cut, c)
		k.mu.Unlock()
	case res.Status != "accepted":
		return res, true
	}
	if c.Type == "retry" {
		k.mu.Lock()
		call := v.nodes[c.NodeID].CallID
		if v.retries[call] == nil {
			v.retries[call] = map[string]bool{}
		}
		if !v.retries[call][c.ID] {
			v.retries[call][c.ID] = true
			k.count(func(t *krTally) { t.retried++ })
		}
		k.mu.Unlock()
	}
	return res, err == nil
}

// waitEnd waits until every run has ended (true) or the server died
// (false). A run that fails or is cancelled is an error.
func (k *krPoint) waitEnd(ctx context.Context, s *krSession, phase int) bool {
	deadline := time.Now().Add(30 * time.Second)
	for {
		if s.srv.dead() {
			return false
		}
		all := true
		for _, v := range k.runs {
			if v.id == "" {
				continue
			}
			var r krRunInfo
			if err := s.srv.c.call(ctx, "GET", "/api/v1/runs/"+v.id, nil, &r); err != nil {
				if s.srv.dead() {
					return false
				}
				k.fail("phase %d: run %d: %v", phase, v.index, err)
				return true
			}
			switch r.Status {
			case "completed":
			case "failed", "cancelled":
				k.fail("phase %d: run %d ended %s: %s %s", phase, v.index, r.Status, r.Reason, r.Error)
			default:
				all = false
				if time.Now().After(deadline) {
					k.fail("phase %d: run %d is still %s (%s) after 30 s", phase, v.index, r.Status, r.Reason)
					return true
				}
			}
		}
		if all {
			return true
		}
		select {
		case <-s.srv.exited:
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// final checks every run once all have ended.
func (k *krPoint) final(ctx context.Context, srv *krServer) {
	for _, v := range k.runs {
		if v.id == "" {
			continue
		}
		k.count(func(t *krTally) { t.runs++ })
		log, err := srv.c.events(ctx, v.id)
		if err != nil {
			k.fail("run %d: events: %v", v.index, err)
			continue
		}
		k.mu.Lock()
		msgs := krCompare(v, log, 1<<62)
		k.count(func(t *krTally) { t.lost += len(msgs) })
		for _, ev := range log {
			if ev.Type == event.NodeStarted {
				var d event.NodeStartedData
				_ = ev.Decode(&d)
				v.nodes[ev.NodeID] = d
			}
		}
		msgs = append(msgs, krCheckLog(v, log)...)
		// No tool call executed more often than once plus the retries the
		// person asked for.
		execs, asks := map[string]int{}, map[string]int{}
		for _, ev := range log {
			switch ev.Type {
			case event.ToolExecuting:
				execs[v.nodes[ev.NodeID].CallID]++
			case event.ApprovalRequested:
				asks[v.nodes[ev.NodeID].CallID]++
			}
		}
		for call, n := range execs {
			if extra := n - 1 - len(v.retries[call]); extra > 0 {
				msgs = append(msgs, fmt.Sprintf("%s executed %d times with %d retries", call, n, len(v.retries[call])))
				k.count(func(t *krTally) { t.reexecuted += extra })
			}
		}
		for _, call := range []string{krCallList, krCallBig, krCallWriteA, krCallReadA, krCallWriteB} {
			if execs[call] == 0 {
				msgs = append(msgs, fmt.Sprintf("%s never executed", call))
			}
		}
		for call, n := range asks {
			if n > 1 {
				msgs = append(msgs, fmt.Sprintf("the approval of %s was asked %d times", call, n))
			}
		}
		k.mu.Unlock()
		// The files hold what the script wrote, read back in between.
		for name, want := range map[string]string{"a.txt": "A: " + v.instr, "b.txt": "B: A: " + v.instr} {
			b, err := os.ReadFile(filepath.Join(v.ws, name))
			if err != nil || string(b) != want {
				msgs = append(msgs, fmt.Sprintf("%s = %q (%v), want %q", name, b, err, want))
			}
		}
		if tmp, _ := filepath.Glob(filepath.Join(v.ws, ".steward-*.tmp")); len(tmp) > 0 {
			k.count(func(t *krTally) { t.tmpLeft += len(tmp) })
		}
		for _, m := range msgs {
			k.fail("run %d (%s): %s", v.index, v.id, m)
		}
	}
}
