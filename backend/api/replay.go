package api

import (
	"context"
	"net/http"

	"steward/backend/policy"
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
	Tools replay.ToolsMode `json:"tools,omitempty"`
	// LiveFrom, when positive, is the model call (from 1) from which the
	// agent's real model answers instead of the recording.
	LiveFrom int `json:"live_from,omitempty"`
	// Workspace is the folder to replay in; empty makes a new one. The files
	// the run changed are put back there as they were before it.
	Workspace string `json:"workspace,omitempty"`
	// AllowNonEmpty lets Workspace hold files already; without it such a
	// folder is refused.
	AllowNonEmpty bool `json:"allow_nonempty,omitempty"`
	// Agent (an id or name) is the agent of this machine to replay with. A
	// run imported from a recording, or whose agent is gone, needs one: it
	// replays with that agent's provider, rules and budgets, never the
	// recording's, and starts paused.
	Agent string `json:"agent,omitempty"`
	// Mode is the replay's permission mode; empty: ask with a chosen
	// agent, the run's own otherwise.
	Mode policy.Mode `json:"mode,omitempty"`
}

func (s *Server) replayRun(w http.ResponseWriter, r *http.Request) error {
	if s.cfg.Replays == nil {
		return errorf(http.StatusNotImplemented, CodeUnsupported, "this server cannot replay runs")
	}
	var in ReplayInput
	if err := decode(w, r, &in); err != nil {
		return err
	}
	started, err := s.cfg.Replays.Replay(r.Context(), r.PathValue("id"), replay.Params{Tools: in.Tools, LiveFrom: in.LiveFrom,
		Workspace: in.Workspace, NonEmpty: in.AllowNonEmpty, Agent: in.Agent, Mode: string(in.Mode)})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, wireRun(started.Run))
	return nil
}
