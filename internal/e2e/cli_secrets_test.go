//go:build unix

package e2e

// Secrets and the data directory through the real binary (issue 14, §5):
// a model server that echoes the key back, and a permissive umask.

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"steward/backend/store"
)

func TestCLIKeyEchoedByTheModelServerIsWrittenNowhere(t *testing.T) {
	t.Parallel()
	// Values with the shape of no known key: only the configured values
	// find them, so this proves main.go hands the keys in force and the
	// token to the redactor of the engine and of the log.
	const key = "k3y0f7h3p3rs0n0nly9fjw2mzq84xv"
	const token = "t0k3n0f7h1s53rv3r0nly4b8c2d6e9"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		msg, _ := json.Marshal(fmt.Sprintf("Incorrect API key provided: %s (you sent Authorization: %s; the server's token is %s)",
			strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "), r.Header.Get("Authorization"), token))
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error":{"message":%s,"type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`, msg)
	}))
	defer srv.Close()

	home := filepath.Join(t.TempDir(), "data")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// The most permissive umask: the data directory's modes must not
	// depend on the person's.
	cmd := exec.CommandContext(ctx, "sh", "-c", `umask 000 && exec "$0" "$@"`, stewardBin(t), "run", "--workspace", t.TempDir(), "hello")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "STEWARD_HOME=" + home, "STEWARD_DISCOVER=0",
		"OPENAI_BASE_URL=" + srv.URL + "/v1", "OPENAI_API_KEY=" + key, "STEWARD_TOKEN=" + token}
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("steward run did not exit; output:\n%s", out)
	}
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("steward run: %v, want exit status 1 (the run failed); output:\n%s", err, out)
	}
	for _, secret := range []string{key, token} {
		if strings.Contains(string(out), secret) {
			t.Errorf("the terminal (transcript and log) shows a secret:\n%s", out)
		}
	}
	if !strings.Contains(string(out), "[REDACTED:configured]") {
		t.Errorf("the terminal does not show the server's message, redacted:\n%s", out)
	}

	// Before the store is opened here: opening it sets the modes.
	for p, want := range map[string]fs.FileMode{home: 0o700, filepath.Join(home, "steward.db"): 0o600, filepath.Join(home, "blobs"): 0o700} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s has mode %o under umask 000, want %o", p, fi.Mode().Perm(), want)
		}
	}
	st, err := store.Open(filepath.Join(home, "steward.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	runs, err := st.ListRuns(context.Background(), store.RunFilter{})
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs: %d, %v", len(runs), err)
	}
	r := runs[0]
	if r.Status != "failed" || !strings.Contains(r.Error, "[REDACTED:configured]") || strings.Contains(r.Error, key) || strings.Contains(r.Error, token) {
		t.Errorf("run %s: status %s, error %q; want failed with the secrets redacted", r.ID, r.Status, r.Error)
	}
	evs, err := st.Events(context.Background(), r.ID, 0, 10000)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range evs {
		if strings.Contains(string(ev.Data), key) || strings.Contains(string(ev.Data), token) {
			t.Errorf("event %d (%s) holds a secret: %s", ev.Seq, ev.Type, ev.Data)
		}
	}

}
