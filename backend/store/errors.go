package store

import "errors"

// Sentinel errors of the store.
var (
	// ErrNotFound means no row has the given id.
	ErrNotFound = errors.New("not found")
	// ErrConflict means a precondition of a write no longer holds, for example
	// an interaction that another surface already answered.
	ErrConflict = errors.New("conflict")
	// ErrClosed is returned by appends after Close.
	ErrClosed = errors.New("store closed")
)
