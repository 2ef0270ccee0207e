//go:build linux

package shell_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"steward/backend/sandbox"
	"steward/backend/tool"
	"steward/backend/tools/shell"
)

// Secrets the helper server is started with, as a person starts Steward.
const (
	secretToken = "steward-token-3f1a9c7e5b2d4f60"
	secretKey   = "sk-proj-secret-8c2e61f0a94b7d35"
)

// TestSandboxedCommandCannotReadServerEnvironment is the attack of issue
// 14: a command read the server's environment through /proc and printed its
// token and API key. The server here is this test binary started again (so
// that the secrets are in its initial environment, which is what /proc
// shows) running run_command in the sandbox.
func TestSandboxedCommandCannotReadServerEnvironment(t *testing.T) {
	t.Parallel()
	newSandboxFixture(t, sandbox.Options{}, sandbox.Settings{}) // skips or fails where bwrap cannot work
	ws := t.TempDir()
	// Every environment of every process the command can see, its
	// parent's first, and every command line: none may be Steward's.
	attack := `tr '\0' '\n' < /proc/$PPID/environ; for f in /proc/[0-9]*/environ; do tr '\0' '\n' < "$f"; done; ` +
		`echo; echo cmdlines:; for f in /proc/[0-9]*/cmdline; do tr '\0' ' ' < "$f"; echo; done`
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperServer$", "-test.count=1")
	cmd.Env = append(os.Environ(), "STEWARD_TOKEN="+secretToken, "OPENAI_API_KEY="+secretKey,
		"STEWARD_HELPER_SERVER=1", "STEWARD_HELPER_WORKSPACE="+ws, "STEWARD_HELPER_COMMAND="+attack)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper server: %v\n%s", err, out)
	}
	got := string(out)
	if !strings.Contains(got, "PATH=") || !strings.Contains(got, "cmdlines:") {
		t.Fatalf("the command read no environment at all, so the test proves nothing:\n%s", got)
	}
	for _, secret := range []string{secretToken, secretKey} {
		if strings.Contains(got, secret) {
			t.Errorf("the command read the server's secret %q:\n%s", secret, got)
		}
	}
	_, cmdlines, _ := strings.Cut(got, "cmdlines:")
	if bin := filepath.Base(os.Args[0]); strings.Contains(cmdlines, bin) {
		t.Errorf("the command sees the server's process %s:\n%s", bin, cmdlines)
	}
}

// TestHelperServer is the server of the test above, not a test of its own:
// it runs one sandboxed command and prints its result.
func TestHelperServer(t *testing.T) {
	if os.Getenv("STEWARD_HELPER_SERVER") != "1" {
		t.Skip("the server process of TestSandboxedCommandCannotReadServerEnvironment")
	}
	reg := tool.NewRegistry()
	for _, tl := range shell.Tools(&shell.Options{Sandbox: sandbox.New(sandbox.Options{})}) {
		if err := reg.Register(tl); err != nil {
			t.Fatal(err)
		}
	}
	args, err := json.Marshal(map[string]any{"command": os.Getenv("STEWARD_HELPER_COMMAND")})
	if err != nil {
		t.Fatal(err)
	}
	env := tool.Env{RunID: "run1", Workspace: os.Getenv("STEWARD_HELPER_WORKSPACE"), Sandbox: sandbox.Settings{Mode: sandbox.ModeOn}}
	res, err := reg.Call(context.Background(), env, shell.RunCommand, args)
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		t.Fatalf("%s: %s", res.Code, res.Output)
	}
	fmt.Println(res.Output)
}

// TestSandboxHidesDataAndCredentials: the data directory and the
// credential folders and files are empty in the sandbox, also for a
// workspace that is the home folder, while a replay's workspace inside the
// data directory is there and writable.
func TestSandboxHidesDataAndCredentials(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	home, data := filepath.Join(base, "home"), filepath.Join(base, "data")
	write := func(path, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(data, "token"), "secret-token-in-data")
	write(filepath.Join(data, "config.json"), `{"openai":{"api_key":"secret-key-in-config"}}`)
	write(filepath.Join(data, "replays", "rp1", "recorded.txt"), "replayed file")
	write(filepath.Join(home, ".ssh", "id_ed25519"), "secret-ssh-key")
	write(filepath.Join(home, ".netrc"), "machine example.com password secret-netrc")
	write(filepath.Join(home, ".config", "gh", "hosts.yml"), "oauth_token: secret-gh")
	write(filepath.Join(home, "notes.txt"), "not a secret")
	getenv := func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	f := newSandboxFixture(t, sandbox.Options{Hide: []string{data}, Getenv: getenv}, sandbox.Settings{})
	secrets := []string{"secret-token-in-data", "secret-key-in-config", "secret-ssh-key", "secret-netrc", "secret-gh"}
	// Unmounting what hides a secret takes a capability the command has
	// not, root or not.
	reads := fmt.Sprintf(`umount -l %[1]s %[2]s/.ssh %[2]s/.netrc 2>/dev/null; `+
		`cat %[1]s/token %[1]s/config.json %[2]s/.ssh/id_ed25519 %[2]s/.netrc %[2]s/.config/gh/hosts.yml; ls -A %[1]s %[2]s/.ssh`, data, home)

	tests := []struct {
		name, ws string
	}{
		{"workspace elsewhere", f.ws},
		{"workspace is the home folder", home},
		{"workspace inside the data directory", filepath.Join(data, "replays", "rp1")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := f.env
			env.Workspace = tt.ws
			res := f.runIn(t, env, map[string]any{"command": reads})
			for _, s := range secrets {
				if strings.Contains(res.Output, s) {
					t.Errorf("the command read %q:\n%s", s, res.Output)
				}
			}
			if !strings.Contains(res.Output, "is hidden from commands by the sandbox") {
				t.Errorf("no note that a path is hidden:\n%s", res.Output)
			}
		})
	}
	t.Run("home folder is read, its secrets are not", func(t *testing.T) {
		env := f.env
		env.Workspace = home
		res := f.runIn(t, env, map[string]any{"command": "cat notes.txt; echo new > made.txt"})
		if res.IsError || !strings.HasPrefix(res.Output, "not a secret") {
			t.Fatalf("%s: %s", res.Code, res.Output)
		}
		if _, err := os.Stat(filepath.Join(home, "made.txt")); err != nil {
			t.Errorf("the workspace was not written: %v", err)
		}
	})
	t.Run("replay workspace inside the data directory is writable", func(t *testing.T) {
		env := f.env
		env.Workspace = filepath.Join(data, "replays", "rp1")
		res := f.runIn(t, env, map[string]any{"command": "cat recorded.txt && echo changed > recorded.txt"})
		if res.IsError || !strings.HasPrefix(res.Output, "replayed file") {
			t.Fatalf("%s: %s", res.Code, res.Output)
		}
		if b, _ := os.ReadFile(filepath.Join(env.Workspace, "recorded.txt")); string(b) != "changed\n" {
			t.Errorf("recorded.txt is %q", b)
		}
	})
}

// TestSandboxNetwork: with the network off a command cannot reach a server
// on this machine's loopback, and is told why; with it on, it can.
func TestSandboxNetwork(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "hello from loopback")
	}))
	t.Cleanup(srv.Close)
	_, port, err := net.SplitHostPort(srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	// bash's /dev/tcp: no client program needed.
	get := fmt.Sprintf(`exec 3<>/dev/tcp/127.0.0.1/%s && printf 'GET / HTTP/1.0\r\nHost: x\r\n\r\n' >&3 && cat <&3`, port)
	tests := []struct {
		network string
		ok      bool
	}{
		{sandbox.NetworkOff, false},
		{"", false}, // off by default
		{sandbox.NetworkOn, true},
	}
	for _, tt := range tests {
		t.Run("network "+tt.network, func(t *testing.T) {
			t.Parallel()
			f := newSandboxFixture(t, sandbox.Options{}, sandbox.Settings{Network: tt.network})
			res := f.run(t, map[string]any{"command": get})
			reached := strings.Contains(res.Output, "hello from loopback")
			if reached != tt.ok || res.IsError == tt.ok {
				t.Fatalf("reached %v, want %v: %s: %s", reached, tt.ok, res.Code, res.Output)
			}
			if note := strings.Contains(res.Output, "[sandbox: network is off for this agent"); note == tt.ok {
				t.Errorf("note that the network is off: %v, want %v:\n%s", note, !tt.ok, res.Output)
			}
		})
	}
}

// TestSandboxFileSystem: a command writes the workspace and a /tmp of its
// own, and nothing else.
func TestSandboxFileSystem(t *testing.T) {
	t.Parallel()
	f := newSandboxFixture(t, sandbox.Options{}, sandbox.Settings{})
	hostTmp, err := os.MkdirTemp("", "host-marker-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(hostTmp) })
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	probe := filepath.Join(home, fmt.Sprintf(".steward-sandbox-probe-%d", os.Getpid()))

	t.Run("workspace is writable", func(t *testing.T) {
		res := f.run(t, map[string]any{"command": "mkdir -p sub/deep && echo written > sub/deep/f.txt"})
		if res.IsError {
			t.Fatalf("%s: %s", res.Code, res.Output)
		}
		if b, err := os.ReadFile(filepath.Join(f.ws, "sub", "deep", "f.txt")); err != nil || string(b) != "written\n" {
			t.Errorf("f.txt: %q, %v", b, err)
		}
	})
	t.Run("tmp is private", func(t *testing.T) {
		// A name of this run's own: the machine is shared, and a fixed name
		// in the host's /tmp could be another program's (CI once failed so).
		mine := fmt.Sprintf("/tmp/steward-sandbox-mine-%d-%d.txt", os.Getpid(), time.Now().UnixNano())
		res := f.run(t, map[string]any{"command": fmt.Sprintf("ls -d %s 2>&1; echo mine > %s && cat %s", hostTmp, mine, mine)})
		if !strings.Contains(res.Output, "No such file or directory") || !strings.Contains(res.Output, "mine\n") {
			t.Errorf("the host's /tmp is visible, or /tmp is not writable:\n%s", res.Output)
		}
		if _, err := os.Stat(mine); err == nil {
			t.Error("the command wrote the host's /tmp")
			os.Remove(mine)
		}
	})
	tests := []struct {
		name, path string
		readOnly   bool // fails with a read-only file system, and the note says so
	}{
		{"home folder", probe, true},
		{"system folder", fmt.Sprintf("/usr/steward-sandbox-probe-%d", os.Getpid()), true},
		{"next to the workspace", filepath.Join(f.outside, "x.txt"), false}, // in /tmp: private, so not the host's
	}
	for _, tt := range tests {
		t.Cleanup(func() { os.Remove(tt.path) }) // should the test fail
		t.Run("cannot write the "+tt.name, func(t *testing.T) {
			res := f.run(t, map[string]any{"command": "mkdir -p $(dirname " + tt.path + ") && echo x > " + tt.path})
			if _, err := os.Stat(tt.path); err == nil {
				t.Fatalf("the command wrote %s: %s", tt.path, res.Output)
			}
			if tt.readOnly && (!res.IsError || !strings.Contains(res.Output, "[sandbox: the sandbox lets commands write only in the workspace and in /tmp")) {
				t.Errorf("no read-only failure with its note:\n%s", res.Output)
			}
		})
	}
}

// TestSandboxSettings: what each mode does on a machine where the sandbox
// works and on one where it does not (a bwrap that is not there).
func TestSandboxSettings(t *testing.T) {
	t.Parallel()
	working := sandbox.New(sandbox.Options{})
	broken := sandbox.New(sandbox.Options{Bwrap: "/nonexistent/bwrap"})
	if err := broken.Available(); err == nil {
		t.Fatal("a missing bwrap works")
	}
	hostTmp, err := os.MkdirTemp("", "host-marker-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(hostTmp) })
	// Inside the sandbox the host's /tmp is not there.
	look := "test -d " + hostTmp + " && echo host-tmp-visible || echo host-tmp-hidden"
	tests := []struct {
		name     string
		sb       *sandbox.Sandbox
		mode     string
		code     string
		contains string
	}{
		{"auto where it works", working, sandbox.ModeAuto, "", "host-tmp-hidden"},
		{"empty is auto", working, "", "", "host-tmp-hidden"},
		{"on where it works", working, sandbox.ModeOn, "", "host-tmp-hidden"},
		{"off", working, sandbox.ModeOff, "", "host-tmp-visible"},
		{"auto where it cannot work", broken, sandbox.ModeAuto, "", "host-tmp-visible"},
		{"on where it cannot work", broken, sandbox.ModeOn, shell.CodeSandbox, "the sandbox is on for this agent, and it cannot work on this machine: the command sandbox cannot work here: bubblewrap is not at /nonexistent/bwrap"},
		{"no sandbox at all, on", nil, sandbox.ModeOn, shell.CodeSandbox, "no sandbox was set up"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.sb == working {
				newSandboxFixture(t, sandbox.Options{}, sandbox.Settings{}) // skips or fails where bwrap cannot work
			}
			f := newFixtureWith(t, &shell.Options{Sandbox: tt.sb}, sandbox.Settings{Mode: tt.mode})
			res := f.run(t, map[string]any{"command": look})
			if res.Code != tt.code || !strings.Contains(res.Output, tt.contains) {
				t.Errorf("%s: %s; want code %q and %q", res.Code, res.Output, tt.code, tt.contains)
			}
		})
	}
}

func (f fixture) runIn(t *testing.T, env tool.Env, args map[string]any) tool.Result {
	t.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	res, err := f.reg.Call(context.Background(), env, shell.RunCommand, b)
	if err != nil {
		t.Fatalf("run_command %s: Go error %v", b, err)
	}
	return res
}

// TestSandboxCacheKeptPerWorkspace: what a command leaves in /tmp/.cache (Go's
// build cache and the like) the next command of the same workspace finds;
// another workspace does not, and the rest of /tmp is gone.
func TestSandboxCacheKeptPerWorkspace(t *testing.T) {
	t.Parallel()
	caches := t.TempDir()
	f := newSandboxFixture(t, sandbox.Options{Caches: caches}, sandbox.Settings{})
	other := f.env
	other.Workspace = f.outside
	write := f.run(t, map[string]any{"command": `echo kept > "$XDG_CACHE_HOME/entry" && echo gone > /tmp/entry && echo "$GOCACHE"`})
	if write.IsError || !strings.HasPrefix(write.Output, "/tmp/.cache/go-build\n") {
		t.Fatalf("%s: %s", write.Code, write.Output)
	}
	read := `cat /tmp/.cache/entry /tmp/entry 2>&1; true`
	if res := f.run(t, map[string]any{"command": read}); !strings.HasPrefix(res.Output, "kept\ncat: /tmp/entry: No such file or directory") {
		t.Errorf("the same workspace's next command: %s", res.Output)
	}
	if res := f.runIn(t, other, map[string]any{"command": read}); strings.Contains(res.Output, "kept") {
		t.Errorf("another workspace sees the cache: %s", res.Output)
	}
}
