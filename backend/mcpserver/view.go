package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"time"

	"steward/backend/event"
	"steward/backend/run"
	"steward/backend/store"
)

// RunSummary is a run as list_runs shows it.
type RunSummary struct {
	ID               string  `json:"id"`
	Agent            string  `json:"agent"`
	Status           string  `json:"status"`
	Reason           string  `json:"reason,omitempty"`
	Instructions     string  `json:"instructions"`
	Workspace        string  `json:"workspace"`
	CreatedAt        string  `json:"created_at"`
	Steps            int     `json:"steps"`
	CostUSD          float64 `json:"cost_usd"`
	PendingApprovals int     `json:"pending_approvals"`
	UIURL            string  `json:"ui_url,omitempty"`
}

// RunView is a run as get_run and wait_run show it: its status, the last
// thing its model said, and what waits for a person, with where the person
// answers it.
type RunView struct {
	RunSummary
	Error       string `json:"error,omitempty"`
	Model       string `json:"model,omitempty"`
	Demo        bool   `json:"demo,omitempty"`
	UpdatedAt   string `json:"updated_at"`
	LastMessage string `json:"last_message,omitempty"`
	// Ended is true when the run completed, failed or was cancelled.
	Ended bool `json:"ended"`
	// Pending are the approvals and questions that wait for a person.
	Pending []Pending `json:"pending"`
	// NeedsPerson says what the run waits for and where a person gives
	// it; empty when the run needs nobody.
	NeedsPerson string `json:"needs_person,omitempty"`
}

// Pending is an approval or a question waiting for a person.
type Pending struct {
	ID     string `json:"id"`
	Kind   string `json:"kind"`
	Tool   string `json:"tool,omitempty"`
	Risk   string `json:"risk,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Arguments are the call's arguments (JSON), cut at maxArguments.
	Arguments string `json:"arguments,omitempty"`
	Question  string `json:"question,omitempty"`
	UIURL     string `json:"ui_url,omitempty"`
}

// maxArguments bounds the arguments shown of a pending call (a file's
// content can be large); the UI shows them whole.
const maxArguments = 2000

// maxLastMessage bounds the last message shown.
const maxLastMessage = 8000

// maxPending bounds the pending interactions listed for one run.
const maxPending = 50

func ms(t int64) string { return time.UnixMilli(t).UTC().Format(time.RFC3339) }

// link is the run's page in the UI, or "" when there is no UI to point to.
func (s *Server) link(runID string) string {
	if s.cfg.UI == "" {
		return ""
	}
	return s.cfg.UI + "#run=" + url.QueryEscape(runID)
}

func (s *Server) summary(r store.Run) RunSummary {
	return RunSummary{ID: r.ID, Agent: r.AgentName, Status: r.Status, Reason: r.Reason, Instructions: clip(r.Instructions, maxLastMessage),
		Workspace: r.Workspace, CreatedAt: ms(r.CreatedAt), Steps: r.Steps, CostUSD: r.CostUSD, PendingApprovals: r.PendingApprovals,
		UIURL: s.link(r.ID)}
}

// view reads run id with its last message and pending interactions.
func (s *Server) view(ctx context.Context, id string) (RunView, error) {
	r, err := s.cfg.Store.GetRun(ctx, id)
	if err != nil {
		return RunView{}, err
	}
	v := RunView{RunSummary: s.summary(r), Error: r.Error, Model: r.Model, Demo: r.Demo, UpdatedAt: ms(r.UpdatedAt),
		Ended: run.Status(r.Status).Terminal(), Pending: []Pending{}}
	if v.LastMessage, err = s.lastMessage(ctx, id); err != nil {
		return RunView{}, err
	}
	if r.ImportedFrom == "" {
		items, err := s.cfg.Store.ListInteractions(ctx, store.InteractionFilter{Status: "pending", RunID: id, Limit: maxPending})
		if err != nil {
			return RunView{}, err
		}
		for _, it := range items {
			p := Pending{ID: it.ID, Kind: it.Kind, Tool: it.Tool, Risk: it.Risk, Reason: it.Reason, Arguments: clip(it.Arguments, maxArguments),
				UIURL: v.UIURL}
			if it.Question != "" {
				var q event.Question
				if json.Unmarshal([]byte(it.Question), &q) == nil {
					p.Question = q.Text
				}
			}
			v.Pending = append(v.Pending, p)
		}
	}
	v.NeedsPerson = s.needsPerson(v)
	return v, nil
}

// needsPerson says what a person must do for the run to go on, and where.
func (s *Server) needsPerson(v RunView) string {
	where := "in Steward's UI"
	if v.UIURL != "" {
		where = "at " + v.UIURL
	}
	switch {
	case len(v.Pending) > 0:
		return fmt.Sprintf("%d approval(s) or question(s) wait for a person, who answers them %s; they cannot be answered through MCP. "+
			"Tell the user, then call wait_run again.", len(v.Pending), where)
	case v.Status == string(run.Paused):
		return "the run is paused (" + v.Reason + "); send_command continue resumes it, or a person resumes it " + where
	}
	return ""
}

// lastMessage is the text of the run's last model answer that has any.
func (s *Server) lastMessage(ctx context.Context, id string) (string, error) {
	nodes, _, err := s.cfg.Store.Graph(ctx, id)
	if err != nil {
		return "", err
	}
	for i := len(nodes) - 1; i >= 0; i-- {
		if nodes[i].Kind != event.KindLLM || nodes[i].FinishedAt == nil {
			continue
		}
		evs, err := s.cfg.Store.NodeEvents(ctx, id, nodes[i].ID)
		if err != nil {
			return "", err
		}
		for j := len(evs) - 1; j >= 0; j-- {
			if evs[j].Type != event.NodeFinished {
				continue
			}
			var d event.NodeFinishedData
			if err := json.Unmarshal(evs[j].Data, &d); err != nil {
				return "", fmt.Errorf("run %s node %s: %w", id, nodes[i].ID, err)
			}
			if d.Text != "" {
				return clip(d.Text, maxLastMessage), nil
			}
		}
	}
	return "", nil
}

// clip cuts s to at most n bytes on a rune boundary, saying so.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d more bytes)", len(s)-cut)
}
