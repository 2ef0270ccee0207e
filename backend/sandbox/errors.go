package sandbox

import "errors"

// Errors of the sandbox.
var (
	// ErrInvalid is wrapped by a setting that is not one of its values.
	ErrInvalid = errors.New("invalid sandbox setting")
	// ErrUnavailable is wrapped by the reason the sandbox cannot work on
	// this machine (another OS, no bubblewrap, no namespaces).
	ErrUnavailable = errors.New("the command sandbox cannot work here")
)
