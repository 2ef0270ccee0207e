package recording

import (
	"errors"
	"fmt"

	"steward/backend/fault"
)

// ErrInvalid is wrapped by every error of Read, Bundle.OpenArtifact and
// Bundle.WriteArtifacts that comes from the file rather than from the
// caller: the recording is damaged, tampered with, too large or not a
// Steward recording. The error's text is the reason, for a person (the
// caller prefixes the file's name).
var ErrInvalid = fault.New(fault.Invalid, "invalid recording")

// invalidError is a reason a recording is refused. Its text is the reason
// alone ("events.jsonl: checksum mismatch (...)"), without "invalid
// recording:" in front, so that the message reads well after a file name.
type invalidError struct {
	msg   string
	cause error // what was underneath (an I/O error), or nil
}

func (e *invalidError) Error() string { return e.msg }

func (e *invalidError) Unwrap() []error {
	if e.cause == nil {
		return []error{ErrInvalid}
	}
	return []error{ErrInvalid, e.cause}
}

// invalid returns a reason to refuse the file. A %w verb keeps its error as
// the cause.
func invalid(format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	return &invalidError{msg: err.Error(), cause: errors.Unwrap(err)}
}
