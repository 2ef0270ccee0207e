package run

import "errors"

// Errors of the run service.
var (
	ErrInvalid  = errors.New("invalid run request")
	ErrNotFound = errors.New("run not found")
	// ErrShuttingDown is returned by Start after Shutdown.
	ErrShuttingDown = errors.New("steward is shutting down: no new runs")
)

// Rejection codes of a command.
const (
	CodeTerminal     = "terminal"
	CodeInvalidState = "invalid_state"
	CodeUnsupported  = "unsupported"
)
