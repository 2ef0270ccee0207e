package run

import "steward/backend/fault"

// Errors of the run service, each of its kind.
var (
	ErrInvalid  = fault.New(fault.Invalid, "invalid run request")
	ErrNotFound = fault.New(fault.NotFound, "run not found")
	// ErrShuttingDown is returned by Start after Shutdown.
	ErrShuttingDown = fault.New(fault.Unavailable, "steward is shutting down: no new runs")
)

// Rejection codes of a command.
const (
	CodeTerminal     = "terminal"
	CodeInvalidState = "invalid_state"
	CodeUnsupported  = "unsupported"
)
