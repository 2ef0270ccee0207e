package app

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestGVariantString(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"", `""`},
		{"Steward: approval needed", `"Steward: approval needed"`},
		{`say "hi" \ bye`, `"say \"hi\" \\ bye"`},
		{"it's", `"it's"`}, // inside double quotes a single quote needs nothing
		{"line\nnext\ttab\x7f", `"line\u000anext\u0009tab\u007f"`},
		{"naïve — ok", `"naïve — ok"`},
		{"bad \xff byte", "\"bad \uFFFD byte\""},
		{"-n <b>", `"-n <b>"`},
	}
	for _, tt := range tests {
		if got := gvariantString(tt.in); got != tt.want {
			t.Errorf("gvariantString(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// A notice with everything a GVariant literal or a command line could trip on.
var tricky = Notice{Title: `-t "Steward": \n approval`, Body: "a<b> & c\nin run \\n run_1"}

func TestGdbusArgs(t *testing.T) {
	t.Parallel()
	want := []string{
		"call", "--session",
		"--dest", "org.freedesktop.Notifications",
		"--object-path", "/org/freedesktop/Notifications",
		"--method", "org.freedesktop.Notifications.Notify",
		`"Steward"`,
		"uint32 0",
		`"steward"`,
		`"-t \"Steward\": \\n approval"`,
		`"a&lt;b&gt; &amp; c\u000ain run \\n run_1"`,
		"@as []",
		`@a{sv} {"desktop-entry": <"steward">}`,
		"int32 -1",
	}
	if diff := cmp.Diff(want, gdbusArgs(tricky)); diff != "" {
		t.Errorf("gdbus arguments (-want +got):\n%s", diff)
	}
}

func TestNotifySendArgs(t *testing.T) {
	t.Parallel()
	want := []string{
		"--app-name=Steward", "--icon=steward", "--hint=string:desktop-entry:steward", "--",
		`-t "Steward": \n approval`, "a&lt;b&gt; &amp; c\nin run \\\\n run_1",
	}
	if diff := cmp.Diff(want, notifySendArgs(tricky)); diff != "" {
		t.Errorf("notify-send arguments (-want +got):\n%s", diff)
	}
}

func TestNewNotifier(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		installed []string
		wantPath  string // "" for noNotifier
		wantArgs  []string
	}{
		{"both", []string{"gdbus", "notify-send"}, "/usr/bin/gdbus", gdbusArgs(tricky)},
		{"gdbus", []string{"gdbus"}, "/usr/bin/gdbus", gdbusArgs(tricky)},
		{"notify-send", []string{"notify-send"}, "/usr/bin/notify-send", notifySendArgs(tricky)},
		{"neither", nil, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			lookPath := func(name string) (string, error) {
				for _, p := range tt.installed {
					if p == name {
						return "/usr/bin/" + name, nil
					}
				}
				return "", exec.ErrNotFound
			}
			n := newNotifier(lookPath)
			if tt.wantPath == "" {
				if err := n.Notify(context.Background(), tricky); !errors.Is(err, errNoNotifier) {
					t.Errorf("Notify: %v, want errNoNotifier", err)
				}
				return
			}
			c, ok := n.(commandNotifier)
			if !ok {
				t.Fatalf("newNotifier = %T, want commandNotifier", n)
			}
			if c.path != tt.wantPath {
				t.Errorf("path = %q, want %q", c.path, tt.wantPath)
			}
			if diff := cmp.Diff(tt.wantArgs, c.args(tricky)); diff != "" {
				t.Errorf("arguments (-want +got):\n%s", diff)
			}
		})
	}
}

// fakeProgram writes an executable shell script named name into a new directory and
// returns its path.
func fakeProgram(t *testing.T, name, script string) string {
	t.Helper()
	// Steward's desktop targets Linux, where sh always exists; without it
	// these tests could not tell whether the notifier works.
	if _, err := exec.LookPath("sh"); err != nil {
		t.Fatalf("no sh to run a fake program with: %v", err)
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// The tests that run a fake program are not parallel: a program written and run while
// another test forks can fail with "text file busy" (golang.org/issue/22315).

// The notifier runs the program it found with the arguments built above, unchanged.
func TestCommandNotifierRuns(t *testing.T) {
	out := filepath.Join(t.TempDir(), "argv")
	p := fakeProgram(t, "gdbus", `for a in "$@"; do printf '%s\0' "$a"; done >"`+out+`"`+"\necho '(uint32 7,)'\n")
	n := newNotifier(func(name string) (string, error) {
		if name == "gdbus" {
			return p, nil
		}
		return "", exec.ErrNotFound
	})
	if err := n.Notify(context.Background(), tricky); err != nil {
		t.Fatalf("Notify: %v", err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
	if diff := cmp.Diff(gdbusArgs(tricky), got); diff != "" {
		t.Errorf("argv (-want +got):\n%s", diff)
	}
}

func TestCommandNotifierFails(t *testing.T) {
	tests := []struct {
		name, script string
		timeout      time.Duration
		want         string // in the error
	}{
		{
			name:   "no service",
			script: "echo 'Error: GDBus.Error:org.freedesktop.DBus.Error.ServiceUnknown: The name is not activatable' >&2\nexit 1\n",
			want:   "gdbus: exit status 1: Error: GDBus.Error:org.freedesktop.DBus.Error.ServiceUnknown",
		},
		{name: "silent failure", script: "exit 3\n", want: "gdbus: exit status 3"},
		// A hung service: the deadline ends the call.
		{name: "hangs", script: "exec sleep 30\n", timeout: 100 * time.Millisecond, want: "gdbus: signal: killed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := commandNotifier{path: fakeProgram(t, "gdbus", tt.script), args: gdbusArgs}
			ctx := context.Background()
			if tt.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.timeout)
				defer cancel()
			}
			start := time.Now()
			err := c.Notify(ctx, tricky)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Notify: %v, want an error with %q", err, tt.want)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("Notify took %v", d)
			}
		})
	}
}
