package workspace

import "errors"

// Sentinels that Resolve wraps. The wrapping error's message is written for
// the model: it names the path and says what to do instead.
var (
	// ErrOutside means the path, or a symlink on its way, leads outside the
	// workspace root.
	ErrOutside = errors.New("outside the workspace")
	// ErrInvalidPath means the path cannot name a file at all: it is empty,
	// too long, contains control characters, runs through a file as if it
	// were a directory, or loops through symlinks.
	ErrInvalidPath = errors.New("invalid path")
)

// pathError is a model-facing message with one of the sentinels as its kind.
type pathError struct {
	msg  string
	kind error
	// viaLink is set once the message names the symlink that escaped, so an
	// outer link of a chain does not overwrite the more precise message.
	viaLink bool
}

func (e *pathError) Error() string { return e.msg }
func (e *pathError) Unwrap() error { return e.kind }
