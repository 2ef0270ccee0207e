//go:build linux

// These tests look at processes through /proc.

package shell_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"steward/backend/sandbox"
	"steward/backend/sandbox/sandboxtest"
	"steward/backend/tool"
	"steward/backend/tools/shell"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fixture is a registry holding run_command and a workspace with a sibling
// directory outside it.
type fixture struct {
	reg     *tool.Registry
	env     tool.Env
	ws      string
	outside string
	opts    *shell.Options
}

// newFixture runs commands with no sandbox.
func newFixture(t *testing.T) fixture { return newFixtureWith(t, nil, sandbox.Settings{}) }

// newSandboxFixture runs commands in a sandbox made with o, under the
// settings set (mode on when empty). It skips the test, or fails it where
// the sandbox is required, when bubblewrap cannot work here.
func newSandboxFixture(t *testing.T, o sandbox.Options, set sandbox.Settings) fixture {
	t.Helper()
	sb := sandbox.New(o)
	sandboxtest.Require(t, sb)
	if set.Mode == "" {
		set.Mode = sandbox.ModeOn
	}
	return newFixtureWith(t, &shell.Options{Sandbox: sb}, set)
}

func newFixtureWith(t *testing.T, opts *shell.Options, set sandbox.Settings) fixture {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside")
	for _, d := range []string{ws, outside, filepath.Join(ws, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	reg := tool.NewRegistry()
	for _, tl := range shell.Tools(opts) {
		if err := reg.Register(tl); err != nil {
			t.Fatal(err)
		}
	}
	return fixture{reg: reg, env: tool.Env{RunID: "run1", Workspace: ws, Sandbox: set}, ws: ws, outside: outside, opts: opts}
}

func (f fixture) run(t *testing.T, args map[string]any) tool.Result {
	t.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	res, err := f.reg.Call(context.Background(), f.env, shell.RunCommand, b)
	if err != nil {
		t.Fatalf("run_command %s: Go error %v", b, err)
	}
	return res
}

func TestExitStatus(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tests := []struct {
		command string
		code    string
		last    string
	}{
		{"echo hello", "", "hello\n[exit code 0]"},
		{"true", "", "(no output)\n[exit code 0]"},
		{"echo oops >&2; exit 2", shell.CodeExitStatus, "oops\n[exit code 2]"},
		{"exit 127", shell.CodeExitStatus, "[exit code 127]"},
		{"no-such-program-anywhere", shell.CodeExitStatus, "[exit code 127]"},
		{"printf 'no newline'", "", "no newline\n[exit code 0]"},
		{"kill -SEGV $$", shell.CodeExitStatus, "[ended by signal 11 (segmentation fault)]"},
		{"[[ -n x ]] && echo bash", "", "bash\n[exit code 0]"},        // the shell is bash here
		{"cat; echo read-nothing", "", "read-nothing\n[exit code 0]"}, // stdin is /dev/null
	}
	for _, tt := range tests {
		t.Run(tt.command, func(t *testing.T) {
			t.Parallel()
			res := f.run(t, map[string]any{"command": tt.command})
			if res.Code != tt.code || res.IsError != (tt.code != "") {
				t.Errorf("code %q, is_error %v; want %q\n%s", res.Code, res.IsError, tt.code, res.Output)
			}
			if !strings.HasSuffix(res.Output, tt.last) {
				t.Errorf("output %q does not end with %q", res.Output, tt.last)
			}
		})
	}
}

func TestInvalidArguments(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, args := range []map[string]any{
		{"command": "  "},
		{"command": "echo a\x00b"},
		{"command": "true", "timeout_s": -1},
		{"command": "true", "timeout_s": 1801},
		{"command": "true", "shell": "zsh"},
	} {
		if res := f.run(t, args); res.Code != tool.CodeInvalidArguments {
			t.Errorf("%v: code %q, want invalid_arguments: %s", args, res.Code, res.Output)
		}
	}
}

func TestOutputOrder(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	res := f.run(t, map[string]any{"command": "for i in 1 2 3; do echo out$i; echo err$i >&2; done"})
	want := "out1\nerr1\nout2\nerr2\nout3\nerr3\n[exit code 0]"
	if res.Output != want {
		t.Errorf("output %q, want %q", res.Output, want)
	}
}

var cutMarker = regexp.MustCompile(`(?m)^… \[(\d+) bytes \((\d+) lines\) cut from the middle of the output\] …\n`)

func TestOutputHeadAndTail(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var full strings.Builder
	for i := 1; i <= 100000; i++ {
		fmt.Fprintf(&full, "%d\n", i)
	}
	res := f.run(t, map[string]any{"command": "seq 1 100000"})
	m := cutMarker.FindStringSubmatchIndex(res.Output)
	if m == nil {
		t.Fatalf("no cut marker in %d bytes of output", len(res.Output))
	}
	head, tail := res.Output[:m[0]], strings.TrimSuffix(res.Output[m[1]:], "[exit code 0]")
	cut, _ := strconv.Atoi(res.Output[m[2]:m[3]])
	lines, _ := strconv.Atoi(res.Output[m[4]:m[5]])
	if !strings.HasPrefix(full.String(), head) || !strings.HasSuffix(full.String(), tail) {
		t.Errorf("head or tail is not the output's: head ends %q, tail starts %q", head[len(head)-20:], tail[:20])
	}
	if len(head)+cut+len(tail) != full.Len() {
		t.Errorf("head %d + cut %d + tail %d != %d bytes of output", len(head), cut, len(tail), full.Len())
	}
	if got := strings.Count(full.String()[len(head):full.Len()-len(tail)], "\n"); lines != got {
		t.Errorf("marker says %d lines cut, %d were", lines, got)
	}
	if len(head) > shell.DefaultHeadBytes || len(tail) > shell.DefaultTailBytes || len(head) < shell.DefaultHeadBytes-100 {
		t.Errorf("kept %d + %d bytes", len(head), len(tail))
	}
}

func TestHugeOutputIsCappedAndFast(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	start := time.Now()
	res := f.run(t, map[string]any{"command": "head -c 10000000 /dev/zero | tr '\\0' x; echo; echo done"})
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("10 MB of output took %s", d)
	}
	if len(res.Output) > 40<<10 {
		t.Errorf("output is %d bytes", len(res.Output))
	}
	if !strings.Contains(res.Output, "bytes (0 lines) cut") || !strings.HasSuffix(res.Output, "done\n[exit code 0]") {
		t.Errorf("output head %q… tail …%q", res.Output[:40], res.Output[len(res.Output)-200:])
	}
}

func TestEnvironmentIsAllowlisted(t *testing.T) {
	// t.Setenv: not parallel.
	secrets := map[string]string{
		"OPENAI_API_KEY":        "sk-openai-secret-value",
		"ANTHROPIC_API_KEY":     "sk-ant-secret-value",
		"STEWARD_TOKEN":         "steward-token-secret-value",
		"AWS_SECRET_ACCESS_KEY": "aws-secret-value",
		"GITHUB_TOKEN":          "ghp-secret-value",
		"LC_SECRET":             "lc-secret-value",
		"GIT_DIR":               "/somewhere/else",
		"BASH_ENV":              "/tmp/evil-bash-env",
	}
	for k, v := range secrets {
		t.Setenv(k, v)
	}
	t.Setenv("LANG", "C.UTF-8")
	t.Setenv("TERM", "xterm-256color")
	f := newFixture(t)
	res := f.run(t, map[string]any{"command": "env"})
	if res.IsError {
		t.Fatal(res.Output)
	}
	for k, v := range secrets {
		if strings.Contains(res.Output, v) || strings.Contains(res.Output, k+"=") {
			t.Errorf("%s reached the command", k)
		}
	}
	vars := map[string]string{}
	for _, line := range strings.Split(strings.TrimSuffix(res.Output, "\n[exit code 0]"), "\n") {
		k, v, _ := strings.Cut(line, "=")
		vars[k] = v
	}
	for k, want := range map[string]string{"TERM": "dumb", "LANG": "C.UTF-8", "PATH": os.Getenv("PATH"), "GIT_TERMINAL_PROMPT": "0", "PAGER": "cat"} {
		if vars[k] != want {
			t.Errorf("%s=%q, want %q", k, vars[k], want)
		}
	}
	allowed := map[string]bool{"PWD": true, "SHLVL": true, "_": true} // set by bash itself
	for _, kv := range shell.Env() {
		k, _, _ := strings.Cut(kv, "=")
		allowed[k] = true
	}
	for k := range vars {
		if !allowed[k] {
			t.Errorf("%s is in the environment but not in Env()", k)
		}
	}
}

func TestWorkingDirectory(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	link := func(name, target string) {
		if err := os.Symlink(target, filepath.Join(f.ws, name)); err != nil {
			t.Fatal(err)
		}
	}
	link("out", f.outside)
	link("up", "..")
	link("inside", "sub")
	if err := os.WriteFile(filepath.Join(f.ws, "file.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		cwd, code, pwd string
	}{
		{"", "", f.ws},
		{".", "", f.ws},
		{"sub", "", filepath.Join(f.ws, "sub")},
		{"sub/", "", filepath.Join(f.ws, "sub")},
		{"inside", "", filepath.Join(f.ws, "sub")},
		{filepath.Join(f.ws, "sub"), "", filepath.Join(f.ws, "sub")},
		{"..", shell.CodeOutside, ""},
		{"../outside", shell.CodeOutside, ""},
		{"sub/../..", shell.CodeOutside, ""},
		{"out", shell.CodeOutside, ""},
		{"up", shell.CodeOutside, ""},
		{"up/outside", shell.CodeOutside, ""},
		{f.outside, shell.CodeOutside, ""},
		{"/", shell.CodeOutside, ""},
		{"missing", shell.CodeNotFound, ""},
		{"file.txt", shell.CodeNotDirectory, ""},
		{"sub\nx", shell.CodeInvalidPath, ""},
	}
	for _, tt := range tests {
		t.Run(strconv.Quote(tt.cwd), func(t *testing.T) {
			t.Parallel()
			res := f.run(t, map[string]any{"command": "pwd -P", "cwd": tt.cwd})
			if res.Code != tt.code {
				t.Fatalf("code %q, want %q: %s", res.Code, tt.code, res.Output)
			}
			if tt.code == "" && res.Output != tt.pwd+"\n[exit code 0]" {
				t.Errorf("ran in %q, want %s", res.Output, tt.pwd)
			}
		})
	}
}

func TestOwnSession(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	// Fields 5 and 6 of cut's stat are its process group and session: both
	// the shell's pid when the shell leads a session of its own.
	res := f.run(t, map[string]any{"command": "echo $$; cut -d' ' -f5,6 /proc/self/stat; tty || true"})
	lines := strings.Split(res.Output, "\n")
	if len(lines) < 3 || lines[1] != lines[0]+" "+lines[0] || !strings.HasPrefix(lines[2], "not a tty") {
		t.Errorf("not in a session of its own, or has a terminal: %q", res.Output)
	}
}
