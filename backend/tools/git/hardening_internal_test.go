//go:build unix

package git

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"steward/backend/tool"
)

// TestTransportProgramsDoNotRun pins what a repository can make git run to
// reach a remote (core.sshCommand, an ext:: URL, a credential helper): no
// git tool fetches or pushes, and the hardening would stop one that did.
// The commands here are run through the tools' own runner.
func TestTransportProgramsDoNotRun(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		config [][2]string
		args   []string
	}{
		{"core.sshCommand", [][2]string{{"remote.origin.url", "ssh://example.invalid/repo"}, {"core.sshCommand", "PROG"}, {"protocol.ssh.allow", "always"}},
			[]string{"fetch", "origin"}},
		{"ext:: transport", [][2]string{{"remote.origin.url", "ext::PROG %S"}, {"protocol.ext.allow", "always"}}, []string{"fetch", "origin"}},
		{"credential helper", [][2]string{{"credential.helper", "!PROG"}, {"credential.https://example.invalid.helper", "!PROG"}},
			[]string{"credential", "fill"}},
		{"credential helper on a fetch", [][2]string{{"remote.origin.url", "SERVER"}, {"protocol.http.allow", "always"}, {"credential.helper", "!PROG"}},
			[]string{"fetch", "origin"}},
		{"askpass on a fetch", [][2]string{{"remote.origin.url", "SERVER"}, {"protocol.http.allow", "always"}, {"core.askPass", "PROG"}},
			[]string{"fetch", "origin"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			base, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			ws := filepath.Join(base, "ws")
			marker := filepath.Join(base, "ran")
			prog := filepath.Join(base, "prog")
			if err := os.WriteFile(prog, []byte(fmt.Sprintf("#!/bin/sh\necho \"$0 $*\" >> %s\n", marker)), 0o755); err != nil {
				t.Fatal(err)
			}
			// A server that wants a password: git asks its helpers, then askpass.
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("WWW-Authenticate", `Basic realm="x"`)
				w.WriteHeader(http.StatusUnauthorized)
			}))
			defer srv.Close()
			gitCmd(t, base, "init", "-q", "-b", "main", ws)
			for _, kv := range tt.config {
				v := kv[1]
				if sub, ok := map[string]string{"PROG": prog, "!PROG": "!" + prog, "ext::PROG %S": "ext::" + prog + " %S", "SERVER": srv.URL + "/repo.git"}[v]; ok {
					v = sub
				}
				gitCmd(t, ws, "config", kv[0], v)
			}
			r, err := open(context.Background(), tool.Env{Workspace: ws}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.close()
			if _, err := r.run(context.Background(), tt.args...); err != nil {
				t.Fatal(err)
			}
			if b, err := os.ReadFile(marker); err == nil {
				t.Errorf("git %v ran the repository's program:\n%s", tt.args, b)
			}
		})
	}
}

func gitCmd(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}
