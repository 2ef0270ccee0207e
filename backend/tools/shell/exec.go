package shell

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// KillGrace is how long a process group has between SIGTERM and SIGKILL.
const KillGrace = 2 * time.Second

const (
	// pollInterval is how often Exec looks whether a group it stopped is
	// gone.
	pollInterval = 20 * time.Millisecond
	// drainWait bounds the wait for the last output once every process of
	// the group is gone. Only a process that left the group (setsid, a
	// daemon) can hold the pipe open longer; Exec does not wait for it.
	drainWait = 250 * time.Millisecond
	// reapWait bounds the wait for the leader after SIGKILL, which only a
	// process stuck in the kernel (a dead NFS mount) survives for long.
	reapWait = 5 * time.Second
	// settleWait is how long a member of the group that is exiting as the
	// leader is reaped has to go before it counts as left running: in the
	// sandbox, bwrap's init process ends a moment after bwrap, once it has
	// reaped the command.
	settleWait = 100 * time.Millisecond
)

// Command is a program for Exec to run.
type Command struct {
	Path string   // the program: absolute, or looked up in the server's PATH
	Args []string // its arguments, without the program's name
	Dir  string   // the working directory
	Env  []string // the whole environment; Env() gives the allowlisted one
	// Timeout ends the command when it passes; zero means none, ctx alone
	// bounds it then.
	Timeout time.Duration
	// HeadBytes and TailBytes are how much of the output's start and end
	// Outcome.Output keeps; zero means DefaultHeadBytes and DefaultTailBytes.
	HeadBytes, TailBytes int
}

// Outcome is how a command ended.
type Outcome struct {
	// Output is standard output and standard error as one stream, in the
	// order written, valid UTF-8, with a marker where its middle was cut.
	Output string
	Cut    int64 // bytes left out of Output
	// ExitCode is the leader's exit status; -1 when a signal ended it.
	ExitCode int
	Signal   syscall.Signal // the signal that ended the leader, if one did
	TimedOut bool           // Timeout passed and the group was stopped
	// Cancelled means ctx ended first and the group was stopped.
	Cancelled bool
	// Killed means some process ignored SIGTERM and got SIGKILL.
	Killed bool
	// Lingering means processes of the group were still running when the
	// leader exited (started in the background); they were stopped.
	Lingering bool
	// Escaped means the output stayed open after the group was gone: a
	// process that left the group (setsid, a daemon) holds it, and runs on.
	Escaped bool
	// Elapsed is the time from the start to the leader's exit, the
	// timeout or the cancellation, before any stopping.
	Elapsed time.Duration
}

// Exec runs c in a new session, and so in a process group of its own with no
// controlling terminal (a program that opens /dev/tty for a password fails
// at once instead of stopping for input nobody gives). Standard input is
// /dev/null; standard output and standard error share one pipe, so their
// order is kept.
//
// Exec returns when the leader has exited and nothing of its process group
// is left: when Timeout passes or ctx ends, and when the leader exits while
// processes it started still run (settleWait after it), the group gets
// SIGTERM and, KillGrace later, SIGKILL. A process that started a session of its own is out of
// reach (that needs cgroups); Outcome.Escaped tells when one held the
// output open.
//
// The error is for a command that could not start, or a failed wait; how the
// command ended, whatever it was, is in the Outcome.
func Exec(ctx context.Context, c Command) (Outcome, error) {
	headMax, tailMax := c.HeadBytes, c.TailBytes
	if headMax <= 0 {
		headMax = DefaultHeadBytes
	}
	if tailMax <= 0 {
		tailMax = DefaultTailBytes
	}
	if err := ctx.Err(); err != nil {
		return Outcome{ExitCode: -1, Cancelled: true}, nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		return Outcome{}, fmt.Errorf("output pipe: %w", err)
	}
	cmd := exec.Command(c.Path, c.Args...)
	cmd.Dir, cmd.Env = c.Dir, c.Env
	// An *os.File is handed to the child as it is: no copying goroutine
	// in os/exec, so Wait returns when the leader exits, whoever still
	// holds the pipe.
	cmd.Stdout, cmd.Stderr = w, w
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	start := time.Now()
	err = cmd.Start()
	// The child has its copy of the write end; ours must go for the reader
	// to see the end of the output. Closing a pipe does not fail short of
	// a bad descriptor, and there is nothing to undo if it did.
	_ = w.Close()
	if err != nil {
		_ = r.Close() // nothing started, nothing to read
		return Outcome{}, fmt.Errorf("start %s: %w", c.Path, err)
	}

	out := newCapture(headMax, tailMax)
	read := make(chan struct{})
	var readErr error // written before read closes
	go func() {
		defer close(read)
		readErr = out.readFrom(r)
	}()
	waited := make(chan error, 1) // buffered: the goroutine never blocks on send
	go func() { waited <- cmd.Wait() }()

	var timeout <-chan time.Time
	if c.Timeout > 0 {
		t := time.NewTimer(c.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	o := Outcome{ExitCode: -1}
	var waitErr error
	exited := false
	select {
	case waitErr = <-waited:
		exited = true
	case <-timeout:
		o.TimedOut = true
	case <-ctx.Done():
		o.Cancelled = true
	}
	o.Elapsed = time.Since(start)
	pgid := cmd.Process.Pid
	if exited {
		o.Lingering = lingers(pgid)
	}
	if !exited || o.Lingering {
		w := waited
		if exited {
			w = nil // received already
		}
		s := stopGroup(pgid, w)
		o.Killed = s.killed
		if !exited && s.exited {
			waitErr, exited = s.waitErr, true
		}
	}

	// Every process of the group is gone, so what is left in the pipe is
	// read at once; only a process that escaped the group keeps it open.
	if err := r.SetReadDeadline(time.Now().Add(drainWait)); err != nil {
		_ = r.Close() // unblocks the reader instead
	}
	<-read
	o.Escaped = errors.Is(readErr, os.ErrDeadlineExceeded) || errors.Is(readErr, os.ErrClosed)
	if err := r.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		return Outcome{}, fmt.Errorf("close output pipe: %w", err)
	}
	o.Output, o.Cut = out.text()

	if !exited {
		return o, nil // stuck after SIGKILL: the exit status is unknown
	}
	var ee *exec.ExitError
	switch {
	case waitErr == nil:
		o.ExitCode = 0
	case errors.As(waitErr, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			o.Signal = ws.Signal()
		} else {
			o.ExitCode = ee.ExitCode()
		}
	default:
		return o, fmt.Errorf("wait for %s: %w", c.Path, waitErr)
	}
	return o, nil
}

// lingers reports whether processes of the group pgid still run once the
// leader exited, giving those that are ending settleWait to go.
func lingers(pgid int) bool {
	limit := time.Now().Add(settleWait)
	for groupAlive(pgid) {
		if time.Now().After(limit) {
			return true
		}
		time.Sleep(pollInterval / 10)
	}
	return false
}

// stopped is what stopGroup saw.
type stopped struct {
	killed  bool  // SIGKILL was needed
	exited  bool  // the leader was reaped
	waitErr error // its Wait's result, when stopGroup received it
}

// stopGroup ends the process group pgid: SIGTERM, and SIGKILL to what is
// left KillGrace later. It returns once the group is empty and the leader
// reaped, or after the SIGKILL. waited delivers the leader's Wait; nil means
// the leader was reaped already.
func stopGroup(pgid int, waited <-chan error) stopped {
	s := stopped{exited: waited == nil}
	signalGroup(pgid, syscall.SIGTERM)
	signalGroup(pgid, syscall.SIGCONT) // a stopped process must run to act on SIGTERM
	grace := time.NewTimer(KillGrace)
	defer grace.Stop()
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for {
		select {
		case s.waitErr = <-waited:
			s.exited, waited = true, nil
		case <-tick.C:
		case <-grace.C:
			s.killed = !s.exited || groupAlive(pgid)
			signalGroup(pgid, syscall.SIGKILL)
			s.awaitKill(pgid, waited)
			return s
		}
		if s.exited && !groupAlive(pgid) {
			return s
		}
	}
}

// awaitKill waits, after SIGKILL, for the leader's Wait and for the group to
// be gone: SIGKILL is sure but not instant. Only a process stuck in the
// kernel outlasts reapWait.
func (s *stopped) awaitKill(pgid int, waited <-chan error) {
	limit := time.NewTimer(reapWait)
	defer limit.Stop()
	tick := time.NewTicker(pollInterval / 4)
	defer tick.Stop()
	for {
		if !s.exited {
			select {
			case s.waitErr = <-waited:
				s.exited, waited = true, nil
			case <-limit.C:
				return
			}
		}
		if !groupAlive(pgid) {
			return
		}
		select {
		case <-tick.C:
		case <-limit.C:
			return
		}
	}
}

// signalGroup sends sig to every process of the group pgid. An error means
// the group is gone already.
func signalGroup(pgid int, sig syscall.Signal) {
	if pgid <= 1 {
		return // kill(-1) would signal every process of the user
	}
	_ = syscall.Kill(-pgid, sig)
}
