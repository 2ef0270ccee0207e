package doctor_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"steward/backend/config"
	"steward/backend/doctor"
	"steward/backend/sandbox"
	"steward/backend/sandbox/sandboxtest"
)

func find(c []doctor.Check, name string) doctor.Check {
	for _, x := range c {
		if x.Name == name {
			return x
		}
	}
	return doctor.Check{}
}

func TestSandboxCheck(t *testing.T) {
	t.Parallel()
	working := sandbox.New(sandbox.Options{})
	tests := []struct {
		name   string
		sb     interface{ Available() error }
		status doctor.Status
		detail string
	}{
		{"works", working, doctor.OK, "commands run in bubblewrap"},
		{"no bwrap", sandbox.New(sandbox.Options{Bwrap: "/nonexistent/bwrap"}), doctor.Warn, "bubblewrap is not at /nonexistent/bwrap. Agents in sandbox mode auto (the default) ask before every command"},
		{"none", nil, doctor.Warn, "no sandbox was set up"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.sb == working {
				sandboxtest.Require(t, working)
			}
			c := find(doctor.Run(context.Background(), doctor.Params{Home: t.TempDir(), Sandbox: tt.sb}), "sandbox")
			if c.Status != tt.status || !strings.Contains(c.Detail, tt.detail) {
				t.Errorf("%s %q, want %s with %q", c.Status, c.Detail, tt.status, tt.detail)
			}
		})
	}
}

func TestProgramChecks(t *testing.T) {
	t.Parallel()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	// A program that prints a version, and one that is there but fails.
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good"), filepath.Join(dir, "bad")
	for path, body := range map[string]string{good: "echo 'Chromium 156.0.1'; echo more", bad: "echo broken >&2; exit 3"} {
		if err := os.WriteFile(path, []byte("#!"+sh+"\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	found := func(p string) func() (string, error) { return func() (string, error) { return p, nil } }
	missing := func() (string, error) { return "", errors.New("no ffmpeg on PATH") }
	checks := doctor.Run(context.Background(), doctor.Params{Home: t.TempDir(), Chromium: found(good), FFmpeg: missing, Version: doctor.ProgramVersion})
	if c := find(checks, "chromium"); c.Status != doctor.OK || c.Detail != good+": Chromium 156.0.1" {
		t.Errorf("chromium: %s %q", c.Status, c.Detail)
	}
	if c := find(checks, "ffmpeg"); c.Status != doctor.Warn || !strings.Contains(c.Detail, "no ffmpeg on PATH: browser recordings are kept as frames") {
		t.Errorf("ffmpeg: %s %q", c.Status, c.Detail)
	}
	checks = doctor.Run(context.Background(), doctor.Params{Home: t.TempDir(), Chromium: found(bad), Version: doctor.ProgramVersion})
	if c := find(checks, "chromium"); c.Status != doctor.Fail || !strings.Contains(c.Detail, "is there but does not run") {
		t.Errorf("broken chromium: %s %q", c.Status, c.Detail)
	}
	// One that does not answer in time (its child keeps the output open, as
	// a wrapper script's would) is a warning to look again: a cold start on
	// a busy machine is slow, not broken. CI once failed so on ffmpeg.
	slow := filepath.Join(dir, "slow")
	if err := os.WriteFile(slow, []byte("#!"+sh+"\nsleep 30\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	checks = doctor.Run(ctx, doctor.Params{Home: t.TempDir(), FFmpeg: found(slow), Version: doctor.ProgramVersion})
	if c := find(checks, "ffmpeg"); c.Status != doctor.Warn || !strings.Contains(c.Detail, "did not print its version within") {
		t.Errorf("slow ffmpeg: %s %q", c.Status, c.Detail)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("a program that does not answer held the check %s", d)
	}
}

// TestProviderChecks: a configured provider is tested against the server
// it names: one that answers the models list is ok, one that refuses the
// key fails, with what it said.
func TestProviderChecks(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer sk-good-key" {
			http.Error(w, `{"error":{"message":"bad key"}}`, http.StatusUnauthorized)
			return
		}
		fmt.Fprint(w, `{"data":[{"id":"m1"},{"id":"m2"}]}`)
	}))
	t.Cleanup(srv.Close)
	tests := []struct {
		key    string
		status doctor.Status
		detail string
	}{
		{"sk-good-key", doctor.OK, "2 models"},
		{"sk-bad-key", doctor.Fail, "the key was refused (401 Unauthorized)"},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			t.Parallel()
			env := map[string]string{"OPENAI_API_KEY": tt.key, "OPENAI_BASE_URL": srv.URL + "/v1"}
			getenv := func(k string) string { return env[k] }
			cfg, err := config.Load(func(k string) string {
				if k == "STEWARD_HOME" {
					return t.TempDir()
				}
				return getenv(k)
			})
			if err != nil {
				t.Fatal(err)
			}
			settings := config.NewSettings(cfg, getenv, config.NewModels(cfg), config.NewPrices(nil))
			c := find(doctor.Run(context.Background(), doctor.Params{Home: cfg.Home, Providers: settings}), "provider openai")
			if c.Status != tt.status || !strings.Contains(c.Detail, tt.detail) || strings.Contains(c.Detail, tt.key) {
				t.Errorf("%s %q, want %s with %q and no key", c.Status, c.Detail, tt.status, tt.detail)
			}
		})
	}
}

func TestDataDirectoryModes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		dir    os.FileMode
		files  map[string]os.FileMode
		status doctor.Status
		detail string
	}{
		{"private", 0o700, map[string]os.FileMode{"token": 0o600, "config.json": 0o600, "steward.db": 0o600}, doctor.OK, "is private to its owner"},
		{"folder open", 0o755, map[string]os.FileMode{"token": 0o600}, doctor.Fail, "(0755)"},
		{"token readable", 0o700, map[string]os.FileMode{"token": 0o644}, doctor.Fail, "token (0644)"},
		{"database readable", 0o700, map[string]os.FileMode{"steward.db": 0o640, "steward.db-wal": 0o644}, doctor.Fail, "steward.db (0640)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			home := filepath.Join(t.TempDir(), "steward")
			if err := os.Mkdir(home, 0o700); err != nil {
				t.Fatal(err)
			}
			for name, mode := range tt.files {
				path := filepath.Join(home, name)
				if err := os.WriteFile(path, nil, 0o600); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(path, mode); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Chmod(home, tt.dir); err != nil {
				t.Fatal(err)
			}
			c := find(doctor.Run(context.Background(), doctor.Params{Home: home}), "data directory")
			if c.Status != tt.status || !strings.Contains(c.Detail, tt.detail) {
				t.Errorf("%s %q, want %s with %q", c.Status, c.Detail, tt.status, tt.detail)
			}
			if tt.status == doctor.Fail && !strings.Contains(c.Detail, "chmod -R go-rwx "+home) {
				t.Errorf("no fix given: %q", c.Detail)
			}
		})
	}
	c := find(doctor.Run(context.Background(), doctor.Params{Home: filepath.Join(t.TempDir(), "none")}), "data directory")
	if c.Status != doctor.OK || !strings.Contains(c.Detail, "does not exist yet") {
		t.Errorf("missing data directory: %s %q", c.Status, c.Detail)
	}
}

func TestWrite(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	failed, err := doctor.Write(&b, []doctor.Check{
		{Name: "sandbox", Status: doctor.OK, Detail: "fine"},
		{Name: "data directory", Status: doctor.Fail, Detail: "open"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "ok    sandbox         fine\nfail  data directory  open\n"
	if !failed || b.String() != want {
		t.Errorf("failed %v, output %q; want true, %q", failed, b.String(), want)
	}
	if failed, _ := doctor.Write(&b, []doctor.Check{{Name: "x", Status: doctor.Warn}}); failed {
		t.Error("a warning failed")
	}
}
