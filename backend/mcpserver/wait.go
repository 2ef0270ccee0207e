package mcpserver

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"steward/backend/event"
	"steward/backend/run"
)

// WaitInput is wait_run's input.
type WaitInput struct {
	RunID          string  `json:"run_id" jsonschema:"the run's id"`
	TimeoutSeconds float64 `json:"timeout_seconds,omitempty" jsonschema:"the longest to wait, in seconds (default 30, at most 300)"`
}

// WaitOutput is the run as wait_run left it.
type WaitOutput struct {
	RunView
	// TimedOut is true when the deadline came first: the run still goes
	// on and needs nobody yet.
	TimedOut bool `json:"timed_out"`
}

// defaultWait and maxWait bound wait_run: a client's call has a timeout of
// its own (often a minute or a few), and a wait cut by it returns nothing.
const (
	defaultWait = 30 * time.Second
	maxWait     = 5 * time.Minute
)

// pollEvery is how often a wait reads the run again when no event woke it:
// a run driven by another process on the same data directory publishes on
// that process's bus, not this one's.
const pollEvery = time.Second

// settled reports whether v is where wait_run returns: the run ended, or
// it waits for a person (an approval, a question, a pause).
func settled(v RunView) bool {
	return v.Ended || len(v.Pending) > 0 || v.Status == string(run.Paused) || v.Status == string(run.Waiting)
}

func (s *Server) waitRun(ctx context.Context, _ *mcp.CallToolRequest, in WaitInput) (*mcp.CallToolResult, WaitOutput, error) {
	if err := needRunID(in.RunID); err != nil {
		return nil, WaitOutput{}, err
	}
	d := defaultWait
	switch {
	case in.TimeoutSeconds < 0 || in.TimeoutSeconds > maxWait.Seconds():
		return nil, WaitOutput{}, fmt.Errorf("timeout_seconds %g is not between 0 and %d", in.TimeoutSeconds, int(maxWait.Seconds()))
	case in.TimeoutSeconds > 0:
		d = time.Duration(in.TimeoutSeconds * float64(time.Second))
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	// Subscribed before the first read: a change between the read and the
	// subscription still wakes the wait.
	var wake <-chan event.Event
	if s.cfg.Bus != nil {
		sub := s.cfg.Bus.Subscribe(in.RunID, 64)
		defer s.cfg.Bus.Unsubscribe(sub)
		wake = sub.C()
	}
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		// Read with a context of its own: the deadline ends the wait, not
		// the last read, whose answer is the result.
		rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		v, err := s.view(rctx, in.RunID)
		rcancel()
		if err != nil {
			return nil, WaitOutput{}, s.runError("wait_run", in.RunID, err)
		}
		if settled(v) {
			return nil, WaitOutput{RunView: v}, nil
		}
		if !s.sleep(ctx, &wake, tick.C) {
			return nil, WaitOutput{RunView: v, TimedOut: true}, nil
		}
	}
}

// sleep waits for an event that may settle the run (its status, an
// approval asked or answered: the run-level ones; text streaming from the
// model is not) or the next poll, and reports false when ctx ended first.
// A feed cut off as slow is dropped: the polls alone wake it from then on.
func (s *Server) sleep(ctx context.Context, wake *<-chan event.Event, poll <-chan time.Time) bool {
	for {
		select {
		case <-ctx.Done():
			return false
		case <-poll:
			return true
		case ev, ok := <-*wake:
			if !ok {
				*wake = nil
				continue
			}
			if ev.IsRunLevel() {
				return true
			}
		}
	}
}
