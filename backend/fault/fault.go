// Package fault holds the kinds of error a service reports: the request was
// invalid, what it names does not exist, the state forbids it now, the
// server cannot serve it now, or cannot do it at all. A service's errors
// carry their kind (its sentinels are made with New, other errors with
// Errorf or Wrap), and each edge maps a kind to its answer once: the API to
// an HTTP status and code (backend/api/errors.go), whatever package the
// error came from. An error of no kind is the system's own failure:
// Internal.
//
// A Kind is itself an error value, so errors.Is(err, fault.NotFound) asks
// whether any error in err's tree is of that kind, through every %w, while
// errors.Is(err, run.ErrNotFound) keeps asking for the sentinel itself.
package fault

import (
	"errors"
	"fmt"
)

// Kind is what kind of failure an error is, as much as the caller needs to
// know to answer it.
type Kind string

// The kinds. Internal is the kind of an error that has none.
const (
	// Invalid: the request is wrong (a field out of range, a name that
	// does not resolve); the message says what, and the caller can fix it.
	Invalid Kind = "invalid"
	// NotFound: what the request names does not exist.
	NotFound Kind = "not found"
	// Conflict: the request is well formed, but the state it meets forbids
	// it (already answered, a file changed since).
	Conflict Kind = "conflict"
	// Unavailable: the server cannot serve it now (it is shutting down);
	// the same request may work later.
	Unavailable Kind = "unavailable"
	// Unsupported: this server, as built or configured, cannot do it at all.
	Unsupported Kind = "unsupported"
	// Internal: the system failed; nothing the caller did or can fix.
	Internal Kind = "internal"
)

// Kinds lists the kinds an error can carry, in the order Of tries them:
// an error that is of two kinds (an invalid request that also wraps the
// not-found lookup behind it) is of the first.
var Kinds = []Kind{Invalid, NotFound, Conflict, Unsupported, Unavailable, Internal}

func (k Kind) Error() string { return string(k) }

// New returns a sentinel error of kind k whose text is text. Like
// errors.New, each call returns a distinct error.
func New(k Kind, text string) error { return &kindError{kind: k, err: errors.New(text)} }

// Errorf formats like fmt.Errorf (with %w wrapping as there) and returns an
// error of kind k.
func Errorf(k Kind, format string, args ...any) error {
	return &kindError{kind: k, err: fmt.Errorf(format, args...)}
}

// Wrap returns err as an error of kind k, with err's text; nil stays nil.
// A kind before k in Kinds that err already carries still decides Of.
func Wrap(k Kind, err error) error {
	if err == nil {
		return nil
	}
	return &kindError{kind: k, err: err}
}

// Of returns the kind of err: the first of Kinds that some error in err's
// tree carries, or Internal when none does (nil has no failure: Internal
// too, and callers check for nil first).
func Of(err error) Kind {
	for _, k := range Kinds {
		if errors.Is(err, k) {
			return k
		}
	}
	return Internal
}

// kindError is an error of a kind. It unwraps to the error it holds, so
// the sentinels and types under it stay visible to errors.Is and As.
type kindError struct {
	kind Kind
	err  error
}

func (e *kindError) Error() string { return e.err.Error() }

func (e *kindError) Unwrap() error { return e.err }

// Is reports whether target is e's kind; errors.Is then compares e itself
// (a sentinel) and unwraps.
func (e *kindError) Is(target error) bool {
	k, ok := target.(Kind)
	return ok && k == e.kind
}
