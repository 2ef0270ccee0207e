package api

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"steward/backend/agent"
	"steward/backend/config"
	"steward/backend/exchange"
	"steward/backend/fault"
	"steward/backend/inbox"
	"steward/backend/recording"
	"steward/backend/run"
	"steward/backend/store"
	"steward/backend/workspace"
)

// TestClassify: every error a service reports answers by its kind, through
// any wrapping, with the status and code the API has always given it; the
// message is the error's text, but for the two errors that say more (a
// second answer, a restore stopped by changed files) and for internal
// failures, whose text stays in the log.
func TestClassify(t *testing.T) {
	t.Parallel()
	conflicts := &workspace.ConflictError{Conflicts: []workspace.Conflict{{Path: "a.txt", Reason: "changed since"}}}
	apiErr := errorf(http.StatusForbidden, CodeForbidden, "host is not this server")
	tests := []struct {
		name string
		err  error
		want *Error
	}{
		{"agent invalid", fmt.Errorf("%w: name is empty", agent.ErrInvalid), &Error{Status: 400, Code: "invalid", Message: "invalid agent: name is empty"}},
		{"run invalid", fmt.Errorf("%w: instructions are empty", run.ErrInvalid), &Error{Status: 400, Code: "invalid", Message: "invalid run request: instructions are empty"}},
		{"inbox invalid", fmt.Errorf("%w: decision", inbox.ErrInvalid), &Error{Status: 400, Code: "invalid", Message: "invalid answer: decision"}},
		{"config invalid", fmt.Errorf("%w: prices", config.ErrInvalid), &Error{Status: 400, Code: "invalid", Message: "invalid settings: prices"}},
		{"exchange invalid", fmt.Errorf("%w: format", exchange.ErrInvalid), &Error{Status: 400, Code: "invalid", Message: "invalid: format"}},
		{"recording invalid", fmt.Errorf("import: %w", recording.ErrInvalid), &Error{Status: 400, Code: "invalid", Message: "import: invalid recording"}},
		{"invalid before not found", fmt.Errorf("%w: agent: %w", run.ErrInvalid, store.ErrNotFound), &Error{Status: 400, Code: "invalid", Message: "invalid run request: agent: not found"}},
		{"store not found", fmt.Errorf("run r1: %w", store.ErrNotFound), &Error{Status: 404, Code: "not_found", Message: "run r1: not found"}},
		{"run not found", fmt.Errorf("%w: r1", run.ErrNotFound), &Error{Status: 404, Code: "not_found", Message: "run not found: r1"}},
		{"inbox not found", inbox.ErrNotFound, &Error{Status: 404, Code: "not_found", Message: "interaction not found"}},
		{"exchange not found", fmt.Errorf("export: %w", exchange.ErrNotFound), &Error{Status: 404, Code: "not_found", Message: "export: not found"}},
		{"answered", fmt.Errorf("interaction ia1 is answered: %w", inbox.ErrAnswered), &Error{Status: 409, Code: "conflict", Message: "already answered"}},
		{"store conflict", fmt.Errorf("answer: %w", store.ErrConflict), &Error{Status: 409, Code: "conflict", Message: "answer: conflict"}},
		{"files changed", fmt.Errorf("restore: %w", conflicts), &Error{Status: 409, Code: "conflict", Message: "restore: nothing was changed: a.txt: changed since", Conflicts: conflicts.Conflicts}},
		{"no journal", run.ErrNoJournal, &Error{Status: 501, Code: "unsupported", Message: "no file journal is kept"}},
		{"shutting down", fmt.Errorf("start: %w", run.ErrShuttingDown), &Error{Status: 503, Code: "unavailable", Message: "start: steward is shutting down: no new runs"}},
		{"of a kind, at the edge", fault.Errorf(fault.Conflict, "the folder dialog could not open: %w", errors.New("no display")), &Error{Status: 409, Code: "conflict", Message: "the folder dialog could not open: no display"}},
		{"an API error", fmt.Errorf("check: %w", apiErr), apiErr},
		{"no kind", fmt.Errorf("write: %w", errors.New("disk full at /home/me")), &Error{Status: 500, Code: "internal", Message: "internal error; see the server log"}},
		{"store closed", store.ErrClosed, &Error{Status: 500, Code: "internal", Message: "internal error; see the server log"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, classify(tt.err)); diff != "" {
				t.Errorf("classify(%v) (-want +got):\n%s", tt.err, diff)
			}
		})
	}
}
