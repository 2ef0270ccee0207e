//go:build unix && !linux

package shell

import (
	"errors"
	"syscall"
)

// groupAlive reports whether a process of the group pgid still exists;
// without /proc a zombie waiting for the init process counts.
func groupAlive(pgid int) bool {
	return !errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH)
}
