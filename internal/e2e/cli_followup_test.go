package e2e

import (
	"regexp"
	"strings"
	"testing"
)

// TestCLIRunContinue: `steward run --continue RUN "message"` goes on with a
// run that ended, as a new turn in the same run, printing only the new turn;
// a run that cannot take one is an error that says why.
func TestCLIRunContinue(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	out, code := stewardCmdIn(t, home, "y\n", nil, "run", "--workspace", ws, "write the demo note")
	if code != 0 {
		t.Fatalf("first run: exit %d; output:\n%s", code, out)
	}
	m := regexp.MustCompile(`run (run_\S+), agent`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no run id in the output:\n%s", out)
	}
	id := strings.TrimSuffix(m[1], ",")

	out, code = stewardCmdIn(t, home, "", nil, "run", "--continue", id, "now say goodbye")
	if code != 0 {
		t.Fatalf("--continue: exit %d; output:\n%s", code, out)
	}
	for _, want := range []string{"run " + id + " (completed), agent default: follow-up", "run completed"} {
		if !strings.Contains(out, want) {
			t.Errorf("--continue output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "approve? write_file") {
		t.Errorf("--continue printed the first turn again:\n%s", out)
	}

	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"an unknown run", []string{"run", "--continue", "run_nope", "more"}, 1, `run "run_nope"`},
		{"no message", []string{"run", "--continue", id}, 2, "Usage: steward run"},
		{"with an agent", []string{"run", "--continue", id, "--agent", "default", "more"}, 2, "drop --agent"},
		{"over budget", []string{"run", "--continue", id, "--max-steps", "1", "more"}, 1, "budget"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, code := stewardCmdIn(t, home, "", nil, tt.args...)
			if code != tt.code || !strings.Contains(out, tt.want) {
				t.Errorf("steward %v: exit %d, want %d with %q; output:\n%s", tt.args, code, tt.code, tt.want, out)
			}
		})
	}
}
