package api_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"steward/backend/api"
	"steward/backend/event"
)

// followUpTexts are the texts of the run's follow-up messages, in order.
func followUpTexts(t *testing.T, evs []event.Event) []string {
	t.Helper()
	var out []string
	for _, ev := range evs {
		if ev.Type != event.NodeStarted {
			continue
		}
		var d event.NodeStartedData
		if err := ev.Decode(&d); err != nil {
			t.Fatal(err)
		}
		if d.Kind == event.KindUser && d.Label == "follow-up" {
			out = append(out, d.Text)
		}
	}
	return out
}

// TestFollowUpREST: POST /runs/{id}/follow-up opens a new turn of a run that
// ended and answers with the run; a run that cannot take one is a 409 saying
// why, a missing message a 400, a repeated command_id the first answer.
func TestFollowUpREST(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	done := e.completedRun()
	if !slices.Contains(done.Capabilities, "follow_up") {
		t.Errorf("a completed run's capabilities %v lack follow_up", done.Capabilities)
	}
	var r api.Run
	in := api.FollowUp{CommandID: "f1", Text: "And add a second line."}
	e.call("POST", "/api/v1/runs/"+done.ID+"/follow-up", in, http.StatusAccepted, &r)
	if r.ID != done.ID || r.LastSeq <= done.LastSeq || (r.Status != "running" && r.Status != "completed") {
		t.Errorf("follow-up answered %s at seq %d (was %d)", r.Status, r.LastSeq, done.LastSeq)
	}
	end := e.waitStatus(done.ID, "completed")
	if end.Steps <= done.Steps {
		t.Errorf("steps %d after the follow-up, %d before", end.Steps, done.Steps)
	}
	// The same command_id again: the first answer, no second turn.
	e.call("POST", "/api/v1/runs/"+done.ID+"/follow-up", in, http.StatusAccepted, &r)
	if got := followUpTexts(t, e.events(done.ID)); !slices.Equal(got, []string{in.Text}) {
		t.Errorf("follow-up messages %q, want one", got)
	}

	live, _ := e.startRun("wait for me")
	e.pending(live.ID)
	e.waitStatus(live.ID, "waiting")
	tests := []struct {
		name, runID string
		body        any
		status      int
		code        string
		mention     []string
	}{
		{"a live run", live.ID, api.FollowUp{CommandID: "f2", Text: "more"}, http.StatusConflict, "conflict", []string{"waiting", "steer"}},
		{"no message", done.ID, api.FollowUp{CommandID: "f3", Text: "  "}, http.StatusBadRequest, "invalid", []string{"follow_up needs a message"}},
		{"no command_id", done.ID, api.FollowUp{Text: "more"}, http.StatusBadRequest, "invalid", []string{"command_id"}},
		{"an unknown field", done.ID, map[string]any{"command_id": "f4", "text": "more", "agent": "x"}, http.StatusBadRequest, "invalid", []string{"agent"}},
		{"an unknown run", "run_nope", api.FollowUp{CommandID: "f5", Text: "more"}, http.StatusNotFound, "not_found", []string{"run_nope"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := e.getRun(done.ID)
			msg := wantError(t, e.do("POST", "/api/v1/runs/"+tt.runID+"/follow-up", tt.body), tt.status, tt.code)
			for _, m := range tt.mention {
				if !strings.Contains(msg, m) {
					t.Errorf("message %q does not mention %q", msg, m)
				}
			}
			if after := e.getRun(done.ID); after.LastSeq != before.LastSeq {
				t.Errorf("the refused follow-up wrote to the log")
			}
		})
	}
}

// TestFollowUpOverTheSocket: the follow_up command over the WebSocket
// opens the new turn; its events, the new user node first, reach the
// subscriber, and the run ends again.
func TestFollowUpOverTheSocket(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	done := e.completedRun()
	c := e.dial(nil)
	send(t, c, subscribe(done.ID, done.LastSeq))
	send(t, c, map[string]any{"type": "command", "id": "k1", "run_id": done.ID,
		"command": api.Command{CommandID: "c1", Type: "follow_up", Text: "One more thing."}})
	var f feed
	f.readUntil(t, c, func(m wsMsg) bool { return isStatus(m, "completed") })
	if _, ok := f.acks["k1"]; !ok {
		f.readUntil(t, c, func(m wsMsg) bool { return m.Type == "ack" })
	}
	var res api.CommandResult
	if err := json.Unmarshal(f.acks["k1"], &res); err != nil || res.Status != "accepted" {
		t.Errorf("ack k1 = %s (%v), want accepted", f.acks["k1"], err)
	}
	if got := followUpTexts(t, f.events); !slices.Equal(got, []string{"One more thing."}) {
		t.Errorf("follow-up messages over the socket %q", got)
	}
	if first := f.events[0]; first.Type != event.RunStatus || !strings.Contains(string(first.Data), `"reason":"follow-up"`) {
		t.Errorf("the follow-up's first event is %s %s, want its run.status", first.Type, first.Data)
	}
}
