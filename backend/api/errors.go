package api

import (
	"encoding/json"
	"errors"
	"net/http"

	"steward/backend/fault"
	"steward/backend/inbox"
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

// kindAnswers is what each kind of error answers: the one place where an
// error of a service (agent, run, inbox, config, exchange, store, ...)
// becomes a status and a code. A kind not listed (Internal, or none) is a
// failure of the system.
var kindAnswers = map[fault.Kind]struct {
	status int
	code   string
}{
	fault.Invalid:     {http.StatusBadRequest, CodeInvalid},
	fault.NotFound:    {http.StatusNotFound, CodeNotFound},
	fault.Conflict:    {http.StatusConflict, CodeConflict},
	fault.Unsupported: {http.StatusNotImplemented, CodeUnsupported},
	fault.Unavailable: {http.StatusServiceUnavailable, CodeUnavailable},
}

// classify maps any error to the API error by its kind (fault.Of); internal
// details are logged by the caller and never sent. Two errors carry more
// than their kind: a second answer to an interaction says only that it was
// answered, and a restore stopped by files that changed lists them.
func classify(err error) *Error {
	var ae *Error
	if errors.As(err, &ae) {
		return ae
	}
	a, ok := kindAnswers[fault.Of(err)]
	if !ok {
		return errorf(http.StatusInternalServerError, CodeInternal, "internal error; see the server log")
	}
	e := errorf(a.status, a.code, err.Error())
	var ce *workspace.ConflictError
	switch {
	case a.code != CodeConflict:
	case errors.Is(err, inbox.ErrAnswered):
		e.Message = "already answered"
	case errors.As(err, &ce):
		e.Conflicts = ce.Conflicts
	}
	return e
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
