//go:build linux

package shell_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"steward/backend/sandbox"
	"steward/backend/tool"
	"steward/backend/tools/shell"
)

// stubborn starts, in the shell's group, a child and a grandchild that
// ignore SIGTERM and run in the background, and prints every pid: five
// lines, the inner sh's twice. Each sleep's duration carries the marker
// (300.<marker> s), so that the processes can be found from outside a PID
// namespace, where the pids printed mean nothing.
func stubborn(marker string) string {
	return fmt.Sprintf(`trap '' TERM
sleep 300.%[1]s & echo "pid $!"
sh -c 'trap "" TERM; sleep 300.%[1]s & echo "pid $!"; echo "pid $$"; wait' &
echo "pid $!"
echo "pid $$"
wait`, marker)
}

// Ways a command runs in these tests: as the server's user, and in the
// sandbox, where stopping it must work the same.
const (
	unconfined = "unconfined"
	sandboxed  = "sandboxed"
)

var ways = []string{unconfined, sandboxed}

func fixtureFor(t *testing.T, way string) fixture {
	t.Helper()
	if way == sandboxed {
		return newSandboxFixture(t, sandbox.Options{}, sandbox.Settings{})
	}
	return newFixture(t)
}

var markers atomic.Int64

// newMarker returns digits no other command of this test binary carries.
func newMarker() string {
	return fmt.Sprintf("%06d%06d", os.Getpid()%1000000, markers.Add(1))
}

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

// checkNoneLeft fails the test for every live process whose command line
// holds marker, and kills it: seen from here, in or out of a sandbox.
func checkNoneLeft(t *testing.T, marker string) {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmd, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && bytes.Contains(cmd, []byte(marker)) && alive(pid) {
			t.Errorf("process %d still runs: %q", pid, bytes.ReplaceAll(cmd, []byte{0}, []byte{' '}))
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// checkStopped checks that every process of a command is gone: by the pids
// it printed when they are this machine's, and by the marker either way.
func checkStopped(t *testing.T, way, output string, want int, marker string) {
	t.Helper()
	ps := pids(t, output, want)
	if way == unconfined {
		checkGone(t, ps)
	}
	checkNoneLeft(t, marker)
}

func TestTimeoutKillsTheGroup(t *testing.T) {
	t.Parallel()
	for _, way := range ways {
		t.Run(way, func(t *testing.T) {
			t.Parallel()
			f := fixtureFor(t, way)
			marker := newMarker()
			start := time.Now()
			res := f.run(t, map[string]any{"command": stubborn(marker), "timeout_s": 1})
			elapsed := time.Since(start)
			if res.Code != tool.CodeTimeout {
				t.Fatalf("code %q, want timeout: %s", res.Code, res.Output)
			}
			checkStopped(t, way, res.Output, 5, marker)
			if want := "[killed after 1 s: the command did not finish within timeout_s and was killed with every process it started; some ignored SIGTERM and were killed with SIGKILL; the output so far is above]"; !strings.HasSuffix(res.Output, want) {
				t.Errorf("output ends %q", res.Output[strings.LastIndexByte(res.Output, '['):])
			}
			if min, max := time.Second+shell.KillGrace, 2*time.Second+shell.KillGrace; elapsed < min || elapsed > max {
				t.Errorf("returned after %s, want %s to %s", elapsed, min, max)
			}
		})
	}
}

func TestTimeoutWithoutStubbornChildren(t *testing.T) {
	t.Parallel()
	for _, way := range ways {
		t.Run(way, func(t *testing.T) {
			t.Parallel()
			f := fixtureFor(t, way)
			marker := newMarker()
			start := time.Now()
			res := f.run(t, map[string]any{"command": fmt.Sprintf(`echo "pid $$"; sleep 300.%[1]s & echo "pid $!"; sleep 300.%[1]s`, marker), "timeout_s": 1})
			if res.Code != tool.CodeTimeout || strings.Contains(res.Output, "SIGKILL") {
				t.Fatalf("code %q: %s", res.Code, res.Output)
			}
			checkStopped(t, way, res.Output, 2, marker)
			if d := time.Since(start); d > time.Second+shell.KillGrace/2 {
				t.Errorf("took %s although everything ended on SIGTERM", d)
			}
		})
	}
}

func TestCancelKillsTheGroup(t *testing.T) {
	t.Parallel()
	for _, way := range ways {
		t.Run(way, func(t *testing.T) {
			t.Parallel()
			f := fixtureFor(t, way)
			marker := newMarker()
			ctx, cancel := context.WithCancel(context.Background())
			stop := time.AfterFunc(500*time.Millisecond, cancel)
			defer stop.Stop()
			args, err := json.Marshal(map[string]any{"command": stubborn(marker)})
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			// Run itself, not the registry: the registry gives up waiting
			// after its own grace, and the point here is what the tool does
			// before it returns.
			res, err := shell.Tools(f.opts)[0].Run(ctx, f.env, args)
			if err != nil {
				t.Fatal(err)
			}
			if res.Code != tool.CodeCancelled {
				t.Fatalf("code %q, want cancelled: %s", res.Code, res.Output)
			}
			checkStopped(t, way, res.Output, 5, marker)
			if d := time.Since(start); d > time.Second+shell.KillGrace+time.Second {
				t.Errorf("took %s", d)
			}
		})
	}
}

func TestBackgroundProcessesStoppedAtExit(t *testing.T) {
	t.Parallel()
	for _, way := range ways {
		t.Run(way, func(t *testing.T) {
			t.Parallel()
			f := fixtureFor(t, way)
			marker := newMarker()
			start := time.Now()
			res := f.run(t, map[string]any{"command": fmt.Sprintf(`sleep 300.%[1]s & echo "pid $!"; sleep 300.%[1]s >/dev/null 2>&1 & echo "pid $!"; echo started`, marker)})
			if res.IsError || !strings.Contains(res.Output, "started\n[note: processes the command left running in the background were stopped when it ended]\n[exit code 0]") {
				t.Fatalf("%s: %s", res.Code, res.Output)
			}
			checkStopped(t, way, res.Output, 2, marker)
			if d := time.Since(start); d > time.Second {
				t.Errorf("took %s", d)
			}
		})
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

// TestSandboxStopsEscapedProcess: in the sandbox a process that left the
// group is out of reach of its signals, but not of the PID namespace: it is
// killed with the namespace's init once the grace has passed.
func TestSandboxStopsEscapedProcess(t *testing.T) {
	t.Parallel()
	f := fixtureFor(t, sandboxed)
	marker := newMarker()
	start := time.Now()
	res := f.run(t, map[string]any{"command": fmt.Sprintf(`setsid sh -c 'exec sleep 300.%s' & sleep 0.2; echo started`, marker)})
	checkNoneLeft(t, marker)
	if d := time.Since(start); d > shell.KillGrace+2*time.Second {
		t.Errorf("took %s", d)
	}
	if res.IsError || strings.Contains(res.Output, "still held the output open") ||
		!strings.HasSuffix(res.Output, "started\n[note: processes the command left running in the background were stopped when it ended]\n[exit code 0]") {
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
