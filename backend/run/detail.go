package run

import (
	"context"
	"fmt"

	"steward/backend/event"
	"steward/backend/llm"
)

// NodeInput returns what a model call node was given: the conversation as
// the model saw it (repaired as the engine repairs it before each call),
// computed by the run's Fold of its log up to the node's start (InputOf).
// It returns ErrNotFound when the run has no such model call.
func (s *Service) NodeInput(ctx context.Context, runID, nodeID string) ([]llm.Message, error) {
	evs, err := s.allEvents(ctx, runID)
	if err != nil {
		return nil, err
	}
	if in, ok := InputOf(evs, nodeID); ok {
		return in, nil
	}
	return nil, fmt.Errorf("%w: run %s has no model call %s", ErrNotFound, runID, nodeID)
}

// InputOf returns the conversation the model call nodeID of the log evs was
// sent: the Fold's request at the call's node.started. ok is false when no
// such model call started in evs.
func InputOf(evs []event.Event, nodeID string) (in []llm.Message, ok bool) {
	f := NewFold()
	for _, ev := range evs {
		f.apply(ev)
		if ev.NodeID == nodeID && ev.Type == event.NodeStarted {
			var d event.NodeStartedData
			_ = ev.Decode(&d)
			if d.Kind != event.KindLLM {
				return nil, false
			}
			return f.request(), true
		}
	}
	return nil, false
}
