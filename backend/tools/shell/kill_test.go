//go:build linux

package shell_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"steward/backend/tool"
	"steward/backend/tools/shell"
)

// stubborn starts, in the shell's group, a child and a grandchild that
// ignore SIGTERM and run in the background, and prints every pid: five
// lines, the inner sh's twice.
const stubborn = `trap '' TERM
sleep 300 & echo "pid $!"
sh -c 'trap "" TERM; sleep 300 & echo "pid $!"; echo "pid $$"; wait' &
echo "pid $!"
echo "pid $$"
wait`

var pidLine = regexp.MustCompile(`(?m)^pid (\d+)$`)

// pids returns the pids a command printed; it fails the test unless there
// are want of them.
func pids(t *testing.T, output string, want int) []int {
	t.Helper()
	var out []int
	for _, m := range pidLine.FindAllStringSubmatch(output, -1) {
		n, err := strconv.Atoi(m[1])
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	if len(out) != want {
		t.Fatalf("%d pids printed, want %d:\n%s", len(out), want, output)
	}
	return out
}

// alive reports whether pid is a process that has not exited; a zombie
// waiting for the init process to reap it has exited.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if errors.Is(err, os.ErrNotExist) {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return err != nil || i < 0 || i+2 >= len(b) || (b[i+2] != 'Z' && b[i+2] != 'X')
}

func checkGone(t *testing.T, ps []int) {
	t.Helper()
	for _, p := range ps {
		if alive(p) {
			t.Errorf("process %d still runs", p)
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
	}
}

func TestTimeoutKillsTheGroup(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	start := time.Now()
	res := f.run(t, map[string]any{"command": stubborn, "timeout_s": 1})
	elapsed := time.Since(start)
	if res.Code != tool.CodeTimeout {
		t.Fatalf("code %q, want timeout: %s", res.Code, res.Output)
	}
	checkGone(t, pids(t, res.Output, 5))
	if want := "[killed after 1 s: the command did not finish within timeout_s and was killed with every process it started; some ignored SIGTERM and were killed with SIGKILL; the output so far is above]"; !strings.HasSuffix(res.Output, want) {
		t.Errorf("output ends %q", res.Output[strings.LastIndexByte(res.Output, '['):])
	}
	if min, max := time.Second+shell.KillGrace, 2*time.Second+shell.KillGrace; elapsed < min || elapsed > max {
		t.Errorf("returned after %s, want %s to %s", elapsed, min, max)
	}
}

func TestTimeoutWithoutStubbornChildren(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	start := time.Now()
	res := f.run(t, map[string]any{"command": `echo "pid $$"; sleep 300 & echo "pid $!"; sleep 300`, "timeout_s": 1})
	if res.Code != tool.CodeTimeout || strings.Contains(res.Output, "SIGKILL") {
		t.Fatalf("code %q: %s", res.Code, res.Output)
	}
	checkGone(t, pids(t, res.Output, 2))
	if d := time.Since(start); d > time.Second+shell.KillGrace/2 {
		t.Errorf("took %s although everything ended on SIGTERM", d)
	}
}

func TestCancelKillsTheGroup(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	stop := time.AfterFunc(500*time.Millisecond, cancel)
	defer stop.Stop()
	args, err := json.Marshal(map[string]any{"command": stubborn})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	// Run itself, not the registry: the registry gives up waiting after
	// its own grace, and the point here is what the tool does before it
	// returns.
	res, err := shell.Tools()[0].Run(ctx, f.env, args)
	if err != nil {
		t.Fatal(err)
	}
	if res.Code != tool.CodeCancelled {
		t.Fatalf("code %q, want cancelled: %s", res.Code, res.Output)
	}
	checkGone(t, pids(t, res.Output, 5))
	if d := time.Since(start); d > time.Second+shell.KillGrace+time.Second {
		t.Errorf("took %s", d)
	}
}

func TestBackgroundProcessesStoppedAtExit(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	start := time.Now()
	res := f.run(t, map[string]any{"command": `sleep 300 & echo "pid $!"; sleep 300 >/dev/null 2>&1 & echo "pid $!"; echo started`})
	if res.IsError || !strings.Contains(res.Output, "started\n[note: processes the command left running in the background were stopped when it ended]\n[exit code 0]") {
		t.Fatalf("%s: %s", res.Code, res.Output)
	}
	checkGone(t, pids(t, res.Output, 2))
	if d := time.Since(start); d > time.Second {
		t.Errorf("took %s", d)
	}
}

func TestEscapedProcessDoesNotHold(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	start := time.Now()
	// A new session is out of the group's reach; it holds the output
	// open, and the call must not wait for it.
	res := f.run(t, map[string]any{"command": `setsid sh -c 'echo "pid $$"; exec sleep 300' & sleep 0.2; echo started`})
	ps := pids(t, res.Output, 1)
	defer func() { _ = syscall.Kill(ps[0], syscall.SIGKILL) }()
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %s", d)
	}
	if !strings.Contains(res.Output, "still held the output open") || !strings.HasSuffix(res.Output, "[exit code 0]") {
		t.Errorf("output %q", res.Output)
	}
}

func TestRegistryDeadlineShortensTimeout(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	const limit = 5 * time.Second
	if err := f.reg.SetTimeout(shell.RunCommand, limit); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	res := f.run(t, map[string]any{"command": "echo begun; sleep 60", "timeout_s": 60})
	if time.Since(start) > limit {
		t.Errorf("took %s, over the registry's %s", time.Since(start), limit)
	}
	// The tool's own deadline stopped it, so its message, with the output,
	// reaches the model rather than the registry's.
	if res.Code != tool.CodeTimeout || !strings.HasPrefix(res.Output, "begun\n") ||
		!strings.Contains(res.Output, "timeout_s asked for 60 s, but only 1.9 s were left to this call") {
		t.Errorf("%s: %s", res.Code, res.Output)
	}
}
