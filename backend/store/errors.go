package store

import (
	"errors"

	"steward/backend/fault"
)

// Sentinel errors of the store.
var (
	// ErrNotFound means no row has the given id.
	ErrNotFound = fault.New(fault.NotFound, "not found")
	// ErrConflict means a precondition of a write no longer holds, for example
	// an interaction that another surface already answered.
	ErrConflict = fault.New(fault.Conflict, "conflict")
	// ErrInvalid means a request the store cannot answer as asked, for
	// example a usage report by an unknown grouping.
	ErrInvalid = fault.New(fault.Invalid, "invalid")
	// errNoFTS5 means the program was built without SQLite's full-text
	// search, which the run list's text search needs.
	errNoFTS5 = errors.New("this build of SQLite has no FTS5 (no such module: fts5): build Steward with -tags sqlite_fts5, as make build does")
	// ErrClosed is returned by appends after Close.
	ErrClosed = errors.New("store closed")
)
