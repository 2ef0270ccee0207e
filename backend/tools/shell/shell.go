// Package shell holds run_command, the tool through which the agent runs
// shell commands in the workspace, and Exec, the process runner it shares
// with the git tools.
//
// A command runs in its own session and process group, with /dev/null as
// standard input and one pipe for standard output and standard error, so
// the model reads them in the order they were written. Its environment is
// an allowlist of the server's (Env): API keys and the server's token never
// reach it. The command's own deadline (timeout_s) and the cancellation of
// the call stop the whole group, SIGTERM then SIGKILL, background processes
// included, and the call returns only once they are gone.
//
// Where the run's sandbox settings and the machine allow it, the command
// runs in the OS sandbox (package sandbox): it can change the workspace and
// a private /tmp only, does not see the data directory, the person's
// credentials or any other process, and has the network only when the
// settings give it. A failure the sandbox caused (no network, a read-only
// folder, a hidden path) carries a note saying so. Mode on refuses a
// command that cannot be sandboxed; mode off, and auto where the sandbox
// cannot work, run it as the server's user, seeing what it sees: the
// permission policy then asks the person about each one. The working
// directory is checked to be inside the workspace either way.
package shell

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"time"

	"steward/backend/sandbox"
	"steward/backend/tool"
	"steward/backend/workspace"
)

// RunCommand is the tool's name.
const RunCommand = "run_command"

// Codes of model-visible failures, besides tool.CodeInvalidArguments,
// tool.CodeTimeout (timeout_s passed; the output so far is in the result)
// and tool.CodeCancelled.
const (
	CodeExitStatus   = "exit_status" // the command exited with a non-zero status, or a signal ended it
	CodeOutside      = "outside_workspace"
	CodeInvalidPath  = "invalid_path"
	CodeNotFound     = "not_found"
	CodeNotDirectory = "not_directory"
	// CodeSandbox: the agent's sandbox is on, and it cannot work on this
	// machine; the message says why.
	CodeSandbox = "sandbox_unavailable"
)

// Deadlines of run_command.
const (
	DefaultTimeout = 120 * time.Second
	MaxTimeout     = 1800 * time.Second
	// CallTimeout is the deadline the tool registry should give run_command
	// calls (tool.Registry.SetTimeout): the longest timeout_s, the time to
	// stop the group and a margin, so that the command's own deadline is
	// the one that stops it, with its output. Under a shorter registry
	// deadline run_command shortens timeout_s to fit and says so.
	CallTimeout = MaxTimeout + stopAllowance + 5*time.Second
	// stopAllowance is what run_command keeps between its own deadline
	// and the caller's: KillGrace, then reaping and the last output.
	stopAllowance = KillGrace + time.Second
)

const description = `Run a shell command in the workspace and get its output and exit code. The command line is run by %[1]s -c, so pipes, &&, redirections, globs and variables work.
It runs in the workspace root, or in cwd (a directory relative to the workspace root, which must stay inside it). Every call starts a fresh shell: cd, exported variables and activated environments do not carry over to the next call; use cwd, or chain commands with &&.
Standard input is empty (/dev/null) and there is no terminal: the command must not wait for input. Pass flags such as --yes or --no-input, and do not start editors, pagers, REPLs or anything that asks for a password.
Output: standard output and standard error as one text, in the order written. Long output keeps its first and last 16 KiB and says how many bytes were cut in between; to see more, filter it (grep, head, tail) or write it to a file and read parts of that file. The result ends with [exit code N]; a non-zero exit code is reported as a failure.
timeout_s (default 120, at most 1800) bounds the run: when it passes, the command and every process it started are killed and the output so far is returned. Give a larger timeout_s to long builds and test suites. Processes left running in the background (cmd &) are stopped when the command ends, so a server cannot be kept running between calls: start it, use it and stop it within one command.
The environment has PATH, HOME, the locale and toolchain directories, but no API keys or tokens; TERM is dumb.
Where the OS sandbox is in force (the agent's setting, on Linux), the command can change only the workspace and /tmp (private to each command and emptied when it ends; caches such as Go's build cache live there too); the rest of the file system, the home folder included, is read-only; credential folders (~/.ssh, ~/.aws, ...) and Steward's own data are hidden; no other process of the machine is visible; and there is no network, loopback included, unless the agent allows it. A failure the sandbox caused is explained at the end of the result: say so to the user rather than trying to get round it. Where it is not in force, do not touch files outside the workspace unless asked to. To read and change files prefer the file tools (read_file, edit_file, write_file): their changes are tracked for review and undo.`

type runArgs struct {
	Command  string `json:"command" jsonschema:"the command line, for example: go test ./... 2>&1 | tail -n 40"`
	Cwd      string `json:"cwd,omitempty" jsonschema:"directory to run in, relative to the workspace root; omit for the root"`
	TimeoutS int    `json:"timeout_s,omitempty" jsonschema:"seconds before the command is killed; default 120, at most 1800"`
}

// Options configure run_command.
type Options struct {
	// Sandbox runs commands in the OS sandbox where the run's settings ask
	// for it; nil is a machine where it cannot work.
	Sandbox *sandbox.Sandbox
}

// Tools returns run_command; nil Options are the zero Options. The shell is
// bash when the system has one, else /bin/sh; the description tells the
// model which.
func Tools(o *Options) []tool.Tool {
	if o == nil {
		o = &Options{}
	}
	sb, sh := o.Sandbox, findShell()
	return []tool.Tool{
		tool.Must(tool.New(RunCommand, fmt.Sprintf(description, sh), tool.RiskExec, func(ctx context.Context, env tool.Env, a runArgs) (tool.Result, error) {
			return runCommand(ctx, env, sb, sh, a)
		})).Sandboxed(),
	}
}

// findShell prefers bash: models write bash (pipefail, [[ ]], brace
// expansion), and on Debian /bin/sh is dash.
func findShell() string {
	for _, p := range []string{"/bin/bash", "/usr/bin/bash"} {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	if p, err := exec.LookPath("bash"); err == nil && strings.HasPrefix(p, "/") {
		return p
	}
	return "/bin/sh"
}

func runCommand(ctx context.Context, env tool.Env, sb *sandbox.Sandbox, sh string, a runArgs) (tool.Result, error) {
	switch {
	case strings.TrimSpace(a.Command) == "":
		return tool.Errorf(tool.CodeInvalidArguments, "command is empty"), nil
	case strings.IndexByte(a.Command, 0) >= 0:
		return tool.Errorf(tool.CodeInvalidArguments, "command contains a NUL byte"), nil
	case a.TimeoutS < 0 || a.TimeoutS > int(MaxTimeout/time.Second):
		return tool.Errorf(tool.CodeInvalidArguments, fmt.Sprintf("timeout_s is %d; give a number of seconds from 1 to %d, or omit it for %d",
			a.TimeoutS, MaxTimeout/time.Second, DefaultTimeout/time.Second)), nil
	}
	state := sb.State(env.Sandbox)
	if state.Refused {
		return tool.Errorf(CodeSandbox, "The command was not run: the sandbox is on for this agent, and it cannot work on this machine: "+
			state.Reason+". Tell the user; they can fix the machine, or turn the agent's sandbox setting to auto or off."), nil
	}
	ws, err := workspace.Open(env.Workspace)
	if err != nil {
		return tool.Result{}, err
	}
	dir, err := workDir(ws, a.Cwd)
	if f := (*failure)(nil); errors.As(err, &f) {
		return tool.Errorf(f.code, f.msg), nil
	} else if err != nil {
		return tool.Result{}, err
	}
	asked := DefaultTimeout
	if a.TimeoutS > 0 {
		asked = time.Duration(a.TimeoutS) * time.Second
	}
	timeout, limited := asked, false
	if dl, ok := ctx.Deadline(); ok {
		if avail := time.Until(dl) - stopAllowance; avail < timeout {
			timeout, limited = max(avail.Truncate(100*time.Millisecond), time.Millisecond), true
		}
	}
	c := Command{Path: sh, Args: []string{"-c", a.Command}, Dir: dir, Env: Env(), Timeout: timeout}
	var boxed sandbox.Command
	if state.Confined {
		boxed, err = sb.Wrap(sandbox.Command{Path: sh, Args: c.Args, Dir: dir, Env: c.Env, Workspace: ws.Path(), Network: state.Network})
		if err != nil {
			return tool.Result{}, fmt.Errorf("run_command: %w", err)
		}
		c.Path, c.Args, c.Env = boxed.Path, boxed.Args, boxed.Env
	}
	o, err := Exec(ctx, c)
	if err != nil {
		return tool.Result{}, fmt.Errorf("run_command: %w", err)
	}
	var notes []string
	if state.Confined && !o.TimedOut && !o.Cancelled && (o.ExitCode != 0 || o.Signal != 0) {
		notes = sb.Explain(boxed, o.Output)
	}
	return report(o, notes, asked, timeout, limited), nil
}

// failure is a model-visible failure on its way out of a helper.
type failure struct{ code, msg string }

func (f *failure) Error() string { return f.msg }

// workDir resolves cwd inside the workspace. A *failure is the model's to
// act on; another error is the system's.
func workDir(ws *workspace.Root, cwd string) (string, error) {
	if cwd == "" {
		return ws.Path(), nil
	}
	abs, err := ws.Resolve(cwd)
	switch {
	case errors.Is(err, workspace.ErrOutside):
		return "", &failure{CodeOutside, "cwd: " + err.Error()}
	case errors.Is(err, workspace.ErrInvalidPath):
		return "", &failure{CodeInvalidPath, "cwd: " + err.Error()}
	case err != nil:
		return "", fmt.Errorf("cwd %s: %w", cwd, err)
	}
	rel, err := ws.Rel(abs)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", &failure{CodeNotFound, fmt.Sprintf("cwd %s does not exist in the workspace", rel)}
	case err != nil:
		return "", fmt.Errorf("cwd %s: %w", rel, err)
	case !fi.IsDir():
		return "", &failure{CodeNotDirectory, fmt.Sprintf("cwd %s is a file, not a directory", rel)}
	}
	return abs, nil
}

// report turns an Outcome into what the model reads: the output, notes on
// processes and on what the sandbox refused, then the status in brackets on
// the last line.
func report(o Outcome, sandboxNotes []string, asked, timeout time.Duration, limited bool) tool.Result {
	var b strings.Builder
	if o.Output == "" {
		b.WriteString("(no output)\n")
	} else {
		b.WriteString(o.Output)
		if !strings.HasSuffix(o.Output, "\n") {
			b.WriteByte('\n')
		}
	}
	if o.Lingering {
		b.WriteString("[note: processes the command left running in the background were stopped when it ended]\n")
	}
	if o.Escaped {
		b.WriteString("[note: a process that left the command's process group (setsid, a daemon) still held the output open; it was not stopped]\n")
	}
	for _, n := range sandboxNotes {
		b.WriteString("[sandbox: " + n + "]\n")
	}
	killed := ""
	if o.Killed {
		killed = "; some ignored SIGTERM and were killed with SIGKILL"
	}
	switch {
	case o.Cancelled:
		fmt.Fprintf(&b, "[cancelled after %s: the call was stopped, and the command with every process it started was killed%s]", seconds(o.Elapsed), killed)
		return tool.Errorf(tool.CodeCancelled, b.String())
	case o.TimedOut && limited:
		fmt.Fprintf(&b, "[killed after %s: the command did not finish in time and was killed with every process it started%s. timeout_s asked for %s, but only %s were left to this call (the server's tool_timeouts setting for run_command, or the run's time limit), so a longer command cannot run here]",
			seconds(timeout), killed, seconds(asked), seconds(timeout))
		return tool.Errorf(tool.CodeTimeout, b.String())
	case o.TimedOut:
		fmt.Fprintf(&b, "[killed after %s: the command did not finish within timeout_s and was killed with every process it started%s; the output so far is above]", seconds(timeout), killed)
		return tool.Errorf(tool.CodeTimeout, b.String())
	case o.Signal != 0:
		fmt.Fprintf(&b, "[ended by signal %d (%s)]", int(o.Signal), o.Signal)
		return tool.Errorf(CodeExitStatus, b.String())
	case o.ExitCode != 0:
		fmt.Fprintf(&b, "[exit code %d]", o.ExitCode)
		return tool.Errorf(CodeExitStatus, b.String())
	}
	fmt.Fprintf(&b, "[exit code 0]")
	return tool.Result{Output: b.String()}
}

// seconds formats d for the model: "120 s", "2.5 s".
func seconds(d time.Duration) string {
	if d%time.Second == 0 {
		return fmt.Sprintf("%d s", d/time.Second)
	}
	return fmt.Sprintf("%.1f s", d.Seconds())
}
