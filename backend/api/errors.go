package api

import (
	"encoding/json"
	"errors"
	"net/http"

	"steward/backend/agent"
	"steward/backend/config"
	"steward/backend/inbox"
	"steward/backend/run"
	"steward/backend/store"
	"steward/backend/workspace"
)

// Error codes of the API; stable, part of the contract.
const (
	CodeInvalid          = "invalid"
	CodeUnauthorized     = "unauthorized"
	CodeForbidden        = "forbidden"
	CodeNotFound         = "not_found"
	CodeConflict         = "conflict"
	CodeUnsupported      = "unsupported"
	CodeInternal         = "internal"
	CodeTooLarge         = "too_large"
	CodeMethodNotAllowed = "method_not_allowed"
	CodeUnavailable      = "unavailable"
	// CodeUpgradeRequired answers a request to the WebSocket route that is
	// no WebSocket upgrade, or one of a version other than 13 (426).
	CodeUpgradeRequired = "upgrade_required"
)

// Error is an error with a stable code and a message safe to show a client.
type Error struct {
	Status  int
	Code    string
	Message string
	// Conflicts are the files that stopped an undo, revert or rewind.
	Conflicts []workspace.Conflict
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

func errorf(status int, code, msg string) *Error {
	return &Error{Status: status, Code: code, Message: msg}
}

// classify maps any error to the API error; internal details are logged by
// the caller and never sent.
func classify(err error) *Error {
	var ae *Error
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.Is(err, agent.ErrInvalid), errors.Is(err, run.ErrInvalid), errors.Is(err, inbox.ErrInvalid), errors.Is(err, config.ErrInvalid):
		return errorf(http.StatusBadRequest, CodeInvalid, err.Error())
	case errors.Is(err, store.ErrNotFound), errors.Is(err, run.ErrNotFound), errors.Is(err, inbox.ErrNotFound):
		return errorf(http.StatusNotFound, CodeNotFound, err.Error())
	case errors.Is(err, inbox.ErrAnswered):
		return errorf(http.StatusConflict, CodeConflict, "already answered")
	case errors.Is(err, run.ErrNoJournal):
		return errorf(http.StatusNotImplemented, CodeUnsupported, err.Error())
	case errors.Is(err, run.ErrShuttingDown):
		return errorf(http.StatusServiceUnavailable, CodeUnavailable, err.Error())
	case errors.Is(err, store.ErrConflict):
		return errorf(http.StatusConflict, CodeConflict, err.Error())
	}
	return errorf(http.StatusInternalServerError, CodeInternal, "internal error; see the server log")
}

type errorBody struct {
	Error struct {
		Code      string               `json:"code"`
		Message   string               `json:"message"`
		Conflicts []workspace.Conflict `json:"conflicts,omitempty"`
	} `json:"error"`
}

func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	e := classify(err)
	if e.Status >= 500 {
		s.cfg.Logf("api: %s %s: %v", r.Method, r.URL.Path, err)
	}
	var b errorBody
	b.Error.Code, b.Error.Message, b.Error.Conflicts = e.Code, e.Message, e.Conflicts
	writeJSON(w, e.Status, b)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v) // the client went away; nothing to do
}
