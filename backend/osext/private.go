// Package osext holds what Steward adds to package os: folders and files
// that only their owner can open, whatever the umask and whatever mode an
// older Steward (or the person) left them with. The data directory holds
// the database, the token, the stored keys and copies of workspace files.
package osext

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// Modes of what is private.
const (
	DirMode  fs.FileMode = 0o700
	FileMode fs.FileMode = 0o600
)

// MkdirPrivate creates dir and any missing parents, and makes dir itself
// mode 0700 if it had another mode. Parents that existed are left alone:
// they may be the person's home.
func MkdirPrivate(dir string) error {
	if err := os.MkdirAll(dir, DirMode); err != nil {
		return err
	}
	return ensureMode(dir, DirMode)
}

// CreatePrivate creates the file at path, empty, when it does not exist,
// and makes it mode 0600 if it had another mode. It is made with that mode
// before anything is written to it, so no other user can open it meanwhile.
func CreatePrivate(path string) error {
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE, FileMode)
	if err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return ensureMode(path, FileMode)
}

// Private makes the file at path mode 0600 if it had another mode; a file
// that does not exist is not an error.
func Private(path string) error {
	err := ensureMode(path, FileMode)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// ensureMode sets path's permission bits to mode unless they are already.
// The umask plays no part in a chmod.
func ensureMode(path string, mode fs.FileMode) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if fi.Mode().Perm() == mode {
		return nil
	}
	if err := os.Chmod(path, mode); err != nil {
		return fmt.Errorf("make %s private (mode %o): %w", path, mode, err)
	}
	return nil
}
