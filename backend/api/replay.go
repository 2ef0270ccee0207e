package api

import (
	"context"
	"net/http"

	"steward/backend/replay"
)

// Replayer replays a run of the database as a new run linked to it.
type Replayer interface {
	Replay(ctx context.Context, runID string, p replay.Params) (replay.Started, error)
}

// ReplayInput asks for a replay of a run that has ended.
type ReplayInput struct {
	// Tools is "recorded" (default: the results come from the recording and
	// nothing runs) or "live" (the tools run for real in the replay's
	// workspace).
	Tools string `json:"tools,omitempty"`
	// LiveFrom, when positive, is the model call (from 1) from which the
	// agent's real model answers instead of the recording.
	LiveFrom int `json:"live_from,omitempty"`
	// Workspace is the folder to replay in; empty makes a new one. The files
	// the run changed are put back there as they were before it.
	Workspace string `json:"workspace,omitempty"`
}

func (s *Server) replayRun(w http.ResponseWriter, r *http.Request) error {
	if s.cfg.Replays == nil {
		return errorf(http.StatusNotImplemented, CodeUnsupported, "this server cannot replay runs")
	}
	var in ReplayInput
	if err := decode(w, r, &in); err != nil {
		return err
	}
	started, err := s.cfg.Replays.Replay(r.Context(), r.PathValue("id"), replay.Params{Tools: in.Tools, LiveFrom: in.LiveFrom, Workspace: in.Workspace})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, wireRun(started.Run))
	return nil
}
