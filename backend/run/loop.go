package run

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"steward/backend/event"
	"steward/backend/llm"
	"steward/backend/tool"
)

// drive runs the step loop until the run ends, pauses for a shutdown, or is
// cancelled. Safe points are before each model call and each tool call.
func (s *Service) drive(ctx context.Context, a *active) {
	for {
		a.mu.Lock()
		act := a.st.next()
		a.mu.Unlock()
		if ctx.Err() != nil {
			s.finish(ctx, a, nil)
			return
		}
		if act.kind == actDone {
			if s.finish(ctx, a, nil) {
				return
			}
			continue // a steer came in with the model's last answer
		}
		if ok, err := s.safePoint(ctx, a, act); !ok || err != nil {
			s.finish(ctx, a, err)
			return
		}
		a.mu.Lock()
		now := a.st.next()
		a.mu.Unlock()
		if !now.same(act) {
			// A command decided the action while the run was paused (a skip
			// ended the call, a retry gave it a new node): look again, from
			// its own safe point.
			continue
		}
		var err error
		switch act.kind {
		case actModel:
			err = s.callModel(ctx, a)
		case actTool:
			err = s.callTool(ctx, a)
		}
		if err != nil {
			s.finish(ctx, a, err)
			return
		}
		a.mu.Lock()
		if a.stepping { // one action done: pause at the next safe point
			a.stepping, a.pauseAsked, a.pauseReason = false, true, "step"
		}
		a.mu.Unlock()
	}
}

// safePoint pauses the run when a pause was asked, a breakpoint is reached
// or an interrupted tool call awaits a decision, and waits until a command
// lets it go on. It returns false when the run was cancelled meanwhile, and
// an error when the pause did not commit: the log would not say the run is
// paused, nor hold what it folded before, so the run cannot go on.
func (s *Service) safePoint(ctx context.Context, a *active, act action) (bool, error) {
	a.mu.Lock()
	reason := ""
	interrupted := act.kind == actTool && act.tool != nil && act.tool.interrupted
	switch {
	case a.pauseAsked && interrupted: // after a restart: say both
		reason = a.pauseReason + ": " + act.call.Name + " was interrupted and may or may not have run; retry, skip or cancel"
	case interrupted:
		reason = "interrupted: " + act.call.Name + " may or may not have run; retry, skip or cancel"
	case a.pauseAsked:
		reason = a.pauseReason
	case act.kind == actModel && a.st.spentOut(a.st.limits) != "":
		reason = "budget: " + a.st.spentOut(a.st.limits) + "; raise it to go on"
	case act.kind == actTool && slices.Contains(a.st.breakBefore, act.call.Name) && !a.brokeAt[act.call.ID]:
		a.brokeAt[act.call.ID] = true
		reason = "breakpoint before " + act.call.Name
	}
	if reason == "" || ctx.Err() != nil {
		a.mu.Unlock()
		return ctx.Err() == nil, nil
	}
	a.pauseAsked, a.pauseReason = false, ""
	if act.kind == actTool {
		// The person has seen this call come next: its breakpoint, if any,
		// has done its work and does not stop the run before it again.
		a.brokeAt[act.call.ID] = true
	}
	next := act.describe()
	if act.kind == actModel && a.st.spentOut(a.st.limits) != "" {
		l := a.st.limits
		next.Limits = &l
	}
	a.setStatusLocked(Paused, reason, "", next)
	a.mu.Unlock()
	if err := a.sync(); err != nil {
		return false, fmt.Errorf("record the pause: %w", err)
	}
	for {
		select {
		case <-ctx.Done():
			return false, nil
		case <-a.wake:
			// Pausing: the run was let go (continue, step, retry, skip) and a
			// pause came before this goroutine woke; the pause takes effect
			// at the next safe point, like any pause of a running run.
			if st := a.status(); st == Running || st == Pausing {
				return true, nil
			}
		}
	}
}

// finish records the end of the run: cancelled when ctx was cancelled,
// paused when Steward shuts down (the next start resumes it), failed when
// cause is set, completed otherwise. It returns false, recording nothing,
// when a completion is no longer due: a steer arrived with the model's last
// answer, and the model must see it.
func (s *Service) finish(ctx context.Context, a *active, cause error) bool {
	a.mu.Lock()
	if ctx.Err() == nil && cause == nil && a.st.next().kind != actDone {
		a.mu.Unlock()
		return false
	}
	if !errors.Is(context.Cause(ctx), errShutdown) {
		// The tools let go of what they kept for the run (its browser)
		// before it ends, so that what that made (a recording) is part of
		// the run. A shutdown keeps nothing either, but the run resumes
		// later: the server closes every browser itself.
		env := a.st.env
		a.mu.Unlock()
		s.endTools(ctx, a, env)
		a.mu.Lock()
		if ctx.Err() == nil && cause == nil && a.st.next().kind != actDone {
			a.mu.Unlock()
			return false // a steer came meanwhile; a browser is started again if asked for
		}
	}
	if a.files != nil {
		a.files.done = true // the watcher records nothing after the run's end
	}
	st, reason, msg, rootStatus := Completed, "", "", event.NodeStatus(event.NodeSucceeded)
	switch {
	case ctx.Err() != nil && errors.Is(context.Cause(ctx), errShutdown):
		a.setStatusLocked(Paused, "shutdown", "", a.st.next().describe())
		a.mu.Unlock()
		if err := a.sync(); err != nil {
			s.cfg.Logf("run %s: record shutdown: %v", a.st.id, err)
		}
		return true
	case ctx.Err() != nil:
		st, reason, rootStatus = Cancelled, "cancelled by the user", event.NodeCancelled
		a.closeUndoneLocked("the run was cancelled")
	case cause != nil:
		st, msg, rootStatus = Failed, cause.Error(), event.NodeFailed
	}
	a.emitLocked(event.NodeFinished, a.st.root, event.NodeFinishedData{Status: rootStatus, Error: msg})
	if a.st.status == Pausing && st == Completed {
		reason = "the model finished before the pause"
	}
	a.setStatusLocked(st, reason, msg, nil)
	a.mu.Unlock()
	if err := a.sync(); err != nil {
		s.cfg.Logf("run %s: record end: %v", a.st.id, err)
	}
	return true
}

// closeUndoneLocked shows the calls the model asked for that never ran as
// cancelled, their output saying why not, so the graph says what was left
// undone; mu must be held. A call interrupted by a crash keeps its end.
func (a *active) closeUndoneLocked(why string) {
	for _, c := range slices.Clone(a.st.calls) {
		t := a.st.tools[c.ID]
		node := ""
		if t == nil {
			node = a.st.newNode()
			a.emitLocked(event.NodeStarted, node, event.NodeStartedData{Kind: event.KindTool, Parent: a.st.lastLLM, After: []string{a.st.lastLLM},
				Label: c.Name, Tool: c.Name, CallID: c.ID, Arguments: validJSON(c.Arguments)})
		} else if !t.finished && !t.interrupted {
			node = t.node
		}
		if node != "" {
			a.emitLocked(event.NodeFinished, node, event.NodeFinishedData{Status: event.NodeCancelled, IsError: true, Code: tool.CodeCancelled,
				Output: c.Name + " was not run: " + why})
		}
	}
}

// interruptedBy is the node status of a call that ctx ended: interrupted by a
// shutdown (the run resumes later), else cancelled.
func interruptedBy(ctx context.Context) event.NodeStatus {
	if errors.Is(context.Cause(ctx), errShutdown) {
		return event.NodeInterrupted
	}
	return event.NodeCancelled
}

// callModel makes one model call as a new node, streaming its text into
// llm.delta events and retrying failures that a retry may cure. A cancelled
// context ends the node and returns ctx.Err(); any other failure ends it as
// failed and returns the error, which ends the run.
func (s *Service) callModel(ctx context.Context, a *active) error {
	start := time.Now()
	// The tools are found before the lock: the first look-up of an MCP
	// server's tools starts the server, and the run's state must not wait
	// on it.
	a.mu.Lock()
	reg, ag := a.st.registry, a.st.agent
	a.mu.Unlock()
	tools := offered(reg, ag)
	a.mu.Lock()
	node := a.st.newNode()
	after := a.st.nextAfter()
	step := a.st.step + 1
	a.emitLocked(event.NodeStarted, node, event.NodeStartedData{
		Kind: event.KindLLM, Parent: a.st.root, After: after,
		Label: "model call " + strconv.Itoa(step), Step: step, Model: a.st.model.Model,
	})
	req := llm.Request{Model: a.st.model.Model, System: a.st.agent.SystemPrompt, Messages: a.st.request(), Tools: tools}
	var picks map[int][]picture
	if a.st.agent.SendImages && !a.imagesRefused {
		picks = a.st.picked(req.Messages)
	}
	provider, artifacts := a.st.model.Provider, a.st.env.Artifacts
	a.flushLocked() // the node is visible while the model thinks
	a.mu.Unlock()
	req.Messages = withImages(req.Messages, picks, artifacts, func(f string, args ...any) {
		s.cfg.Logf("run %s: "+f, append([]any{a.st.id}, args...)...)
	})

	var resp *llm.Response
	var err error
	withoutTried := false // the call was sent again without its images
	for attempt := 1; ; attempt++ {
		resp, err = s.stream(ctx, a, node, provider, req)
		if len(picks) > 0 && refusedImages(err) && ctx.Err() == nil {
			// The agent says its model takes images; the server refused the
			// request that carried some. It goes again without them: if
			// that passes, the images were the cause, and the run sends no
			// more.
			picks, req.Messages, withoutTried = nil, withoutImages(req.Messages), true
			a.emit(event.LLMAttempt, node, event.LLMAttemptData{Attempt: attempt, Kind: string(llm.ErrInvalid),
				Error: "the server refused the request, which carried images (" + err.Error() + "): sending it again without them"})
			a.flush()
			continue
		}
		if withoutTried && err == nil {
			a.mu.Lock()
			a.imagesRefused = true
			a.mu.Unlock()
		}
		if err == nil || ctx.Err() != nil || !llm.Retryable(err) || attempt > s.cfg.ModelRetries {
			// An answer that arrived although ctx ended is recorded: it
			// exists, and the run stops at its next safe point.
			break
		}
		wait := backoff(attempt, err)
		var le *llm.Error
		errors.As(err, &le)
		a.emit(event.LLMAttempt, node, event.LLMAttemptData{Attempt: attempt, Kind: string(le.Kind), Error: err.Error(), RetryInMS: wait.Milliseconds()})
		a.flush()
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
	}
	dur := time.Since(start).Milliseconds()
	if err != nil && ctx.Err() != nil {
		a.emit(event.NodeFinished, node, event.NodeFinishedData{Status: interruptedBy(ctx), Error: "model call stopped: " + context.Cause(ctx).Error(), DurationMS: dur})
		return nil // drive sees ctx and ends the run
	}
	if err != nil {
		err = fmt.Errorf("model call failed: %w", err)
		a.emit(event.NodeFinished, node, event.NodeFinishedData{Status: event.NodeFailed, Error: err.Error(), DurationMS: dur})
		return err
	}
	calls := make([]event.ToolCall, len(resp.ToolCalls))
	for i, c := range resp.ToolCalls {
		calls[i] = event.ToolCall{ID: c.ID, Name: c.Name, Arguments: validJSON(c.Arguments)}
	}
	cost := 0.0
	if s.cfg.Price != nil {
		model := resp.Model
		if model == "" {
			model = req.Model
		}
		cost, _ = s.cfg.Price(model, resp.Usage)
	}
	a.emit(event.NodeFinished, node, event.NodeFinishedData{
		Status: event.NodeSucceeded, Text: resp.Text, ToolCalls: calls, StopReason: resp.StopReason, DurationMS: dur, CostUSD: cost, Model: resp.Model,
		Usage: &event.Usage{InputTokens: resp.Usage.InputTokens, OutputTokens: resp.Usage.OutputTokens, CachedTokens: resp.Usage.CachedTokens},
	})
	return nil
}

// stream makes one attempt, coalescing streamed text into llm.delta events:
// one event per flush interval keeps the log small and the stream live.
func (s *Service) stream(ctx context.Context, a *active, node string, p llm.Provider, req llm.Request) (*llm.Response, error) {
	var buf []byte
	last := time.Now()
	flush := func(all bool) {
		n := len(buf)
		if !all && n < maxDelta {
			// The text after the last white space waits for the next
			// delta: a secret cut in two would not be recognised by the
			// redaction of either piece.
			n = bytes.LastIndexAny(buf, " \t\r\n") + 1
		}
		if n > 0 {
			a.emit(event.LLMDelta, node, event.LLMDeltaData{Text: string(buf[:n])})
			if !all {
				// The text so far goes to watchers now; the last piece
				// commits with the call's end, which comes at once.
				a.flush()
			}
			buf = append(buf[:0], buf[n:]...)
		}
		last = time.Now()
	}
	resp, err := p.Stream(ctx, req, func(d llm.Delta) {
		if d.Kind != llm.DeltaText {
			return
		}
		buf = append(buf, d.Text...)
		if time.Since(last) >= s.cfg.DeltaFlush || len(buf) >= maxDelta {
			flush(false)
		}
	})
	flush(true)
	return resp, err
}

// maxDelta bounds the text held for one llm.delta event.
const maxDelta = 4096

// backoff is the wait before retry number attempt: the server's Retry-After
// when it sent one (capped), else exponential from 500 ms with ±25% jitter.
func backoff(attempt int, err error) time.Duration {
	const maxWait = 30 * time.Second
	var le *llm.Error
	if errors.As(err, &le) && le.RetryAfter > 0 {
		return min(le.RetryAfter, maxWait)
	}
	d := 500 * time.Millisecond << (attempt - 1)
	jitter := time.Duration(float64(d) * (0.75 + 0.5*randFloat()))
	return min(jitter, maxWait)
}

// validJSON keeps a model's malformed arguments visible in the log without
// breaking the event's own JSON.
func validJSON(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage("{}")
	}
	if json.Valid(b) {
		return b
	}
	q, _ := json.Marshal(string(b))
	return q
}

// modelText is what the model reads of a result: a failure carries its
// diagnostic code, so a model can tell bad arguments from a missing file.
func modelText(res tool.Result) string {
	if res.IsError && res.Code != "" {
		return "error " + res.Code + ": " + res.Output
	}
	return res.Output
}

// endToolsTimeout bounds how long a run's end waits for its tools to let go
// (encoding a recording takes a second or two).
const endToolsTimeout = time.Minute

// endTools tells the tools that the run ends and records the artifacts
// that produced.
func (s *Service) endTools(ctx context.Context, a *active, env tool.Env) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), endToolsTimeout)
	defer cancel()
	arts, err := a.st.registry.EndRun(ctx, env)
	if err != nil {
		s.cfg.Logf("run %s: end tools: %v", env.RunID, err)
	}
	for _, art := range arts {
		a.emit(event.ArtifactCreated, "", artifactData(art))
	}
}
