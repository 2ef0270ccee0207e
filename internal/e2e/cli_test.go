package e2e

// Tests of the command line through the real binary.

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// stewardCmd runs the binary with a clean environment and returns its
// combined output and exit code.
func stewardCmd(t *testing.T, stdin string, extraEnv []string, args ...string) (string, int) {
	t.Helper()
	return stewardCmdIn(t, t.TempDir(), stdin, extraEnv, args...)
}

// stewardCmdIn is stewardCmd with home as the home and data directory, so
// that one command sees what another left there.
func stewardCmdIn(t *testing.T, home, stdin string, extraEnv []string, args ...string) (string, int) {
	t.Helper()
	// A command that hangs fails the test, saying so, rather than the run
	// of every test at its deadline.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, stewardBin(t), args...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "STEWARD_HOME=" + home, "STEWARD_DISCOVER=0"}, extraEnv...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("steward %v did not exit within 2 minutes; output:\n%s", args, out)
	}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return string(out), ee.ExitCode()
	case err != nil:
		t.Fatalf("run steward %v: %v", args, err)
	}
	return string(out), 0
}

func TestCLIRunApprovesOnTheTerminal(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	out, code := stewardCmd(t, "y\n", nil, "run", "--workspace", ws, "write the demo note")
	if code != 0 {
		t.Fatalf("exit %d, want 0; output:\n%s", code, out)
	}
	for _, want := range []string{"demo script", "list_dir", "approve? write_file", "approved (cli)", "run completed"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if b, err := os.ReadFile(filepath.Join(ws, "steward-demo.md")); err != nil || !strings.Contains(string(b), "write the demo note") {
		t.Errorf("file after approval: %q, %v", b, err)
	}
}

func TestCLIRunDeniesWithReason(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	out, code := stewardCmd(t, "n\nnot today\n", nil, "run", "--workspace", ws, "try to write")
	if code != 0 {
		t.Fatalf("exit %d; output:\n%s", code, out)
	}
	if !strings.Contains(out, "denied: not today") || !strings.Contains(out, "Their feedback: not today") {
		t.Errorf("the reason did not reach the model:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(ws, "steward-demo.md")); !os.IsNotExist(err) {
		t.Errorf("denied file exists (%v)", err)
	}
}

func TestCLIUnattendedAndClosedInput(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	out, code := stewardCmd(t, "", nil, "run", "--unattended", "--workspace", ws, "nobody is here")
	if code != 0 || !strings.Contains(out, "unattended run: nobody to ask") || strings.Contains(out, "approve?") {
		t.Errorf("unattended: exit %d, output:\n%s", code, out)
	}
	// Closed stdin without --unattended: the prompt is answered "deny".
	out, code = stewardCmd(t, "", nil, "run", "--workspace", ws, "stdin is closed")
	if code != 0 || !strings.Contains(out, "input closed") {
		t.Errorf("closed stdin: exit %d, output:\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(ws, "steward-demo.md")); !os.IsNotExist(err) {
		t.Errorf("a file was written without approval (%v)", err)
	}
}

func TestCLIUnreachableModelFailsTheRun(t *testing.T) {
	t.Parallel()
	out, code := stewardCmd(t, "", []string{"OPENAI_BASE_URL=http://127.0.0.1:1/v1", "OPENAI_API_KEY=x"},
		"run", "--workspace", t.TempDir(), "hello")
	if code != 1 || !strings.Contains(out, "run failed") || !strings.Contains(out, "127.0.0.1:1") {
		t.Errorf("exit %d, want 1 with the server named; output:\n%s", code, out)
	}
}

func TestCLIUsageAndBadInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--help"}, 0, "steward serve"},
		{[]string{"help"}, 0, "steward mcp"},
		{[]string{"version"}, 0, "steward "},
		{[]string{"serve", "--help"}, 0, "--addr"},
		{[]string{"run", "--help"}, 0, "--unattended"},
		{[]string{"mcp", "--help"}, 0, "claude mcp add steward -- steward mcp"},
		{[]string{"mcp", "extra"}, 1, "mcp takes no arguments"},
		{[]string{"mcp", "--addr", "nonsense"}, 1, "nonsense"},
		{[]string{"mcp", "--addr", "0.0.0.0:0"}, 1, "not loopback"},
		{[]string{"bogus"}, 2, `unknown command "bogus"`},
		{[]string{"run"}, 2, "Usage: steward run"},
		{[]string{"run", "--agent", "nobody", "hi"}, 1, `agent "nobody"`},
		{[]string{"run", "--workspace", "/does/not/exist", "hi"}, 1, "/does/not/exist"},
		{[]string{"serve", "--addr", "0.0.0.0:0"}, 1, "--expose"},
		{[]string{"serve", "--addr", "nonsense"}, 1, "nonsense"},
		{[]string{"help"}, 0, "ANTHROPIC_API_KEY"},
		{[]string{"run", "--mode", "yolo", "hi"}, 2, `--mode "yolo" is not one of ask, edits, plan, auto`},
		{[]string{"run", "--continue", "run_x", "--mode", "auto", "hi"}, 2, "drop --mode"},
		{[]string{"runs", "--status", "done"}, 2, `status "done" is not one of queued, running`},
		{[]string{"runs", "--limit", "0"}, 2, "--limit 0 is not between 1 and 1000"},
		{[]string{"runs"}, 0, "No runs."},
		{[]string{"agents"}, 0, "default"},
		{[]string{"agents", "extra"}, 2, `unexpected argument "extra"`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			out, code := stewardCmd(t, "", nil, tt.args...)
			if code != tt.code || !strings.Contains(out, tt.want) {
				t.Errorf("exit %d (want %d), output lacks %q:\n%s", code, tt.code, tt.want, out)
			}
		})
	}
}

func TestCLIBreakpointSteerAndContinue(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	// Paused before write_file: steer, then continue; approve the write.
	out, code := stewardCmd(t, "m please keep it short\nc\ny\n", nil, "run", "--break-before", "write_file", "--workspace", ws, "note it")
	if code != 0 {
		t.Fatalf("exit %d; output:\n%s", code, out)
	}
	for _, want := range []string{"paused (breakpoint before write_file). Next: write_file", "approved (cli)", "run completed"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, "steward-demo.md")); err != nil {
		t.Errorf("file not written after continue and approval: %v", err)
	}
	// A closed input at a paused run cancels it: nobody can continue.
	out, code = stewardCmd(t, "", nil, "run", "--break-before", "list_dir", "--workspace", ws, "stop here")
	if code != 1 || !strings.Contains(out, "input closed: cancelling the run") || !strings.Contains(out, "run cancelled") {
		t.Errorf("closed input at a breakpoint: exit %d, output:\n%s", code, out)
	}
	if _, code := stewardCmd(t, "", nil, "run", "--break-before", "nope", "--workspace", ws, "x"); code != 1 {
		t.Errorf("unknown breakpoint tool accepted")
	}
}

func TestCLICtrlCPausesThenCancels(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	cmd := exec.Command(stewardBin(t), "run", "--workspace", t.TempDir(), "wait for my Ctrl-C")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "STEWARD_HOME=" + home, "STEWARD_DISCOVER=0"}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = writerFunc(out.addRaw), writerFunc(out.addRaw)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitOut := func(s string) {
		t.Helper()
		deadline := time.Now().Add(15 * time.Second)
		for !strings.Contains(out.String(), s) {
			if time.Now().After(deadline) {
				t.Fatalf("no %q in output:\n%s", s, out)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	waitOut("approve? write_file")
	// Ctrl-C while waiting for the approval: the run pauses before the
	// approved call runs.
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	waitOut("pausing at the next safe point")
	stdin.Write([]byte("y\n"))
	waitOut("paused (paused by the user). Next: write_file")
	// A second Ctrl-C cancels.
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(out.String(), "run cancelled") {
		t.Errorf("exit %v; output:\n%s", err, out)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

func TestCLIBudgetPauseAndRaise(t *testing.T) {
	t.Parallel()
	// A budget of one model call: the demo needs three. Continue is refused,
	// raise doubles the budget (two calls, then three).
	out, code := stewardCmd(t, "c\nr\ny\nr\n", nil, "run", "--max-steps", "1", "--workspace", t.TempDir(), "within budget")
	for _, want := range []string{"paused (budget: max_steps 1 reached; raise it to go on)", "continue: budget: max_steps 1 reached",
		"paused (budget: max_steps 2 reached", "run completed"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if code != 0 {
		t.Errorf("exit %d", code)
	}
}

// TestCLIDoctor: steward doctor checks the machine, one line per check, and
// fails on a data directory other users can read.
func TestCLIDoctor(t *testing.T) {
	t.Parallel()
	private := t.TempDir()
	if err := os.Chmod(private, 0o700); err != nil {
		t.Fatal(err)
	}
	out, code := stewardCmd(t, "", []string{"STEWARD_HOME=" + private}, "doctor")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	for _, name := range []string{"sandbox", "chromium", "ffmpeg", "providers", "data directory"} {
		if !regexp.MustCompile(`(?m)^(ok|warn|fail) +` + name + ` `).MatchString(out) {
			t.Errorf("no %s check:\n%s", name, out)
		}
	}
	open := t.TempDir()
	if err := os.Chmod(open, 0o755); err != nil {
		t.Fatal(err)
	}
	out, code = stewardCmd(t, "", []string{"STEWARD_HOME=" + open}, "doctor")
	if code != 1 || !strings.Contains(out, "fail  data directory  open to other users of this machine: "+open+" (0755)") {
		t.Errorf("exit %d with a data directory open to all:\n%s", code, out)
	}
}

// steward runs lists the runs newest first, one a line, with their status,
// agent, age and instructions; --mode runs with another permission mode.
func TestCLIRunsAndMode(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	// In plan mode only the read tools are offered: the demo's write does
	// not happen, and nothing asks.
	out, code := stewardCmdIn(t, home, "", nil, "run", "--workspace", ws, "--mode", "plan", "note \x1b[31mred\x1b[0m")
	if code != 0 {
		t.Fatalf("plan mode: exit %d; output:\n%s", code, out)
	}
	if strings.Contains(out, "approve?") {
		t.Errorf("a plan-mode run asked to approve:\n%s", out)
	}
	out, code = stewardCmdIn(t, home, "", nil, "runs")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2 || !strings.HasPrefix(lines[0], "RUN") || !strings.Contains(lines[1], "completed") ||
		!strings.Contains(lines[1], "default") || !strings.Contains(lines[1], "just now") || !strings.Contains(lines[1], "note") {
		t.Fatalf("steward runs: exit %d:\n%s", code, out)
	}
	if strings.Contains(out, "\x1b") {
		t.Errorf("the instructions' escape reached the terminal: %q", out)
	}
	out, _ = stewardCmdIn(t, home, "", nil, "runs", "--status", "failed")
	if strings.TrimSpace(out) != "No runs." {
		t.Errorf("runs --status failed:\n%s", out)
	}
}
