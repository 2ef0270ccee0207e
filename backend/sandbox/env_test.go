package sandbox

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEnvFrom(t *testing.T) {
	t.Parallel()
	got := envFrom([]string{
		"HOME=/home/u", "OPENAI_API_KEY=sk-x", "STEWARD_TOKEN=t", "LC_TIME=C", "LC_SECRET=s",
		"TERM=xterm", "GIT_PAGER=less", "XDG_RUNTIME_DIR=/run/user/1", "SSH_AUTH_SOCK=/tmp/agent", "malformed",
	})
	want := []string{
		"GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0", "HOME=/home/u", "LC_TIME=C", "NO_COLOR=1",
		"PAGER=cat", "PATH=" + defaultPath, "TERM=dumb",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("env (-want +got):\n%s", diff)
	}
}
