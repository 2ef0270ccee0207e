package api

import (
	"net/http"

	"steward/backend/event"
	"steward/backend/run"
)

// FollowUp continues a run that ended (completed, failed or cancelled)
// with a message, as a chat does: a new turn of the same run, whose budgets
// count every turn (see run.CmdFollowUp). It is the follow_up command
// answered as REST answers: the run, running again, or an error.
type FollowUp struct {
	// CommandID is chosen by the client, as for any command: a request sent
	// again with the same id applies once and gets the first answer.
	CommandID string `json:"command_id"`
	// Text is the message, 1 byte to 64 KiB, not only white space.
	Text string `json:"text"`
	// Limits raise the run's budgets for the new turn, where set.
	Limits *event.Limits `json:"limits,omitempty"`
}

// followUp answers 202 with the run once its new turn is recorded; 409 with
// the engine's reason when the run cannot take one (it has not ended, it is
// a recording or a replay, its agent is gone, a budget is spent, another
// follow-up came first); 400 for a missing message.
func (s *Server) followUp(w http.ResponseWriter, r *http.Request) error {
	var in FollowUp
	if err := decode(w, r, &in); err != nil {
		return err
	}
	id := r.PathValue("id")
	res, err := s.cfg.Runs.Command(r.Context(), id, run.Command{CommandID: in.CommandID, Type: run.CmdFollowUp, Text: in.Text, Limits: in.Limits})
	if err != nil {
		return err
	}
	if res.Status != "accepted" {
		return errorf(http.StatusConflict, CodeConflict, res.Message)
	}
	rr, err := s.cfg.Store.GetRun(r.Context(), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusAccepted, wireRun(rr))
	return nil
}
