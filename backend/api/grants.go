package api

import (
	"context"
	"net/http"

	"steward/backend/event"
	"steward/backend/store"
)

// GrantStore lists and revokes the saved grants.
type GrantStore interface {
	ListGrants(ctx context.Context) ([]store.Grant, error)
	DeleteGrant(ctx context.Context, id string) error
}

// Grant is a saved "approve always" (effect allow) or "deny always" (effect
// deny): it decides the calls of tool whose key argument matches match (""
// for any call of the tool), in run run_id, for agent agent_id, or
// everywhere.
type Grant struct {
	ID        string           `json:"id"`
	Effect    event.Effect     `json:"effect"`
	Tool      string           `json:"tool"`
	Match     string           `json:"match"`
	Scope     event.GrantScope `json:"scope"`
	RunID     string           `json:"run_id,omitempty"`
	AgentID   string           `json:"agent_id,omitempty"`
	CreatedAt int64            `json:"created_at"`
}

type grantsBody struct {
	Grants []Grant `json:"grants"`
}

func wireGrant(g store.Grant) Grant {
	return Grant{ID: g.ID, Effect: event.Effect(g.Effect), Tool: g.Tool, Match: g.Match, Scope: event.GrantScope(g.Scope), RunID: g.RunID, AgentID: g.AgentID, CreatedAt: g.CreatedAt}
}

func (s *Server) listGrants(w http.ResponseWriter, r *http.Request) error {
	list, err := s.cfg.Store.ListGrants(r.Context())
	if err != nil {
		return err
	}
	out := grantsBody{Grants: make([]Grant, len(list))}
	for i, g := range list {
		out.Grants[i] = wireGrant(g)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) deleteGrant(w http.ResponseWriter, r *http.Request) error {
	if err := s.cfg.Store.DeleteGrant(r.Context(), r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
