package store

// Lease holders, and how another process tells a live one from a dead one.
//
// A lease names its holder by a Holder: the instance of the Store it was
// taken through, which is new at every Open and so at every start of a
// process; the process id, for messages only; and a name the caller gives
// (one per run.Service). Whether a holder still lives is told by the kernel,
// never by its pid: every open Store holds an exclusive flock(2) on a file of
// its own, <database>-holders/<instance>, and the kernel lets go of it when
// the process ends, however it ends (an exit, SIGKILL, its container
// stopped). Another process tries that lock: when it gets it, the holder is
// gone, and its leases can be taken at once.
//
// A pid could not tell that. A server restarted in a container is pid 1
// again, as its predecessor was; any pid is reused in time; and two
// processes in different PID namespaces that share a data directory cannot
// see each other's pids at all. (A shared PostgreSQL would do the same with a
// session-level advisory lock.)

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Holder names the holder of a lease.
type Holder struct {
	PID      int    // the holder's process id as it saw it, for messages
	Instance string // the Store it took the lease through; "" in the form older versions wrote
	Name     string // the holder's own name within that Store
}

// String is the holder as the leases table keeps it: pid:instance:name (or
// pid:name for a holder of an older version).
func (h Holder) String() string {
	if h.Instance == "" {
		return strconv.Itoa(h.PID) + ":" + h.Name
	}
	return strconv.Itoa(h.PID) + ":" + h.Instance + ":" + h.Name
}

// parseHolder reads a holder as String writes it. A holder of another form
// has PID 0.
func parseHolder(s string) Holder {
	parts := strings.SplitN(s, ":", 3)
	pid, err := strconv.Atoi(parts[0])
	switch {
	case err != nil || pid <= 0 || len(parts) < 2:
		return Holder{Name: s}
	case len(parts) == 2:
		return Holder{PID: pid, Name: parts[1]}
	}
	return Holder{PID: pid, Instance: parts[1], Name: parts[2]}
}

// NewHolder returns a holder named name that takes leases through s.
func (s *Store) NewHolder(name string) Holder {
	return Holder{PID: os.Getpid(), Instance: s.instance, Name: name}
}

// holderLock is this Store's lock file.
type holderLock struct {
	dir, path string
	f         *os.File
}

// instanceBytes is the size of the random part of an instance id: 128 bits,
// so two starts never share one.
const instanceBytes = 16

// lockHolder creates the holders directory of the database at dbPath if
// needed, sweeps the files of dead holders, and takes this Store's lock.
func lockHolder(dbPath string) (string, *holderLock, error) {
	dir := dbPath + "-holders"
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", nil, fmt.Errorf("holders directory: %w", err)
	}
	sweepHolders(dir)
	b := make([]byte, instanceBytes)
	_, _ = rand.Read(b) // never fails (crypto/rand panics on failure)
	instance := hex.EncodeToString(b)
	// Made under a temporary name and renamed once locked, so that a file
	// under an instance's name is always locked while its Store is open: a
	// sweep can never take it for a dead holder's.
	f, err := os.CreateTemp(dir, ".new-*")
	if err != nil {
		return "", nil, fmt.Errorf("holder lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		os.Remove(f.Name())
		return "", nil, fmt.Errorf("holder lock %s: %w (the data directory must be on a file system with file locks)", f.Name(), err)
	}
	l := &holderLock{dir: dir, path: filepath.Join(dir, instance), f: f}
	if err := os.Rename(f.Name(), l.path); err != nil {
		f.Close()
		os.Remove(f.Name())
		return "", nil, fmt.Errorf("holder lock: %w", err)
	}
	return instance, l, nil
}

// release ends the lock. The file goes first, so nobody finds it unlocked.
func (l *holderLock) release() {
	if l == nil {
		return
	}
	_ = os.Remove(l.path) // a sweep may have taken it already: nothing to do
	_ = l.f.Close()       // closing the last descriptor drops the lock
}

// sweepHolders removes the files of holders that are gone. A temporary file
// is left to its maker for a minute: it is locked only once made.
func sweepHolders(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return // nothing to sweep; lockHolder says what is wrong
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > time.Minute {
				_ = os.Remove(filepath.Join(dir, name)) // a maker that died before its rename
			}
			continue
		}
		if validInstance(name) {
			holderGone(dir, name)
		}
	}
}

func validInstance(s string) bool {
	if len(s) != 2*instanceBytes {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// alive reports whether h can still be driving what it holds. A holder this
// process cannot judge (a lock file it may not open, a name it never made)
// counts as alive: its lease's expiry decides.
func (s *Store) alive(h Holder) bool {
	switch {
	case h.Instance == s.instance:
		return true // this Store, open: another of its holders
	case h.Instance == "" && h.PID > 0:
		return legacyAlive(h.PID)
	case !validInstance(h.Instance):
		return true
	}
	return !holderGone(s.lock.dir, h.Instance)
}

// holderGone reports whether the Store instance of dir is closed or its
// process gone, by taking its lock; a gone holder's file is removed.
func holderGone(dir, instance string) bool {
	path := filepath.Join(dir, instance)
	f, err := os.OpenFile(path, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return true // its Store closed, or a sweep found it gone already
	}
	if err != nil {
		return false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return false // held (EWOULDBLOCK), or no telling
	}
	// Ours now: its holder is gone. Removed while still locked, so that no
	// one else finds it unlocked and takes it for something else.
	_ = os.Remove(path) // another sweep may have been first
	return true
}

// legacyAlive judges a holder of the form older versions wrote (pid:name)
// by its pid, the only thing it names: alive while a process of that pid
// runs. This process never writes that form, so a holder with its own pid is
// a predecessor that had the same pid (pid 1 in a restarted container).
func legacyAlive(pid int) bool {
	if pid == os.Getpid() {
		return false
	}
	// A killed process not yet reaped by its parent is a zombie: gone too.
	if stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
		if i := strings.LastIndexByte(string(stat), ')'); i >= 0 && i+2 < len(stat) {
			return stat[i+2] != 'Z' && stat[i+2] != 'X'
		}
	}
	return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
