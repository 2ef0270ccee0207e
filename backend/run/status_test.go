package run_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"steward/backend/run"
)

func TestCanTransition(t *testing.T) {
	t.Parallel()
	all := []run.Status{run.Queued, run.Running, run.Waiting, run.Completed, run.Failed, run.Cancelled}
	// legal lists every move the state machine allows; anything else,
	// staying put included, is illegal.
	legal := map[[2]run.Status]bool{
		{run.Queued, run.Running}:    true,
		{run.Queued, run.Failed}:     true,
		{run.Queued, run.Cancelled}:  true,
		{run.Running, run.Waiting}:   true,
		{run.Running, run.Completed}: true,
		{run.Running, run.Failed}:    true,
		{run.Running, run.Cancelled}: true,
		{run.Waiting, run.Running}:   true,
		{run.Waiting, run.Failed}:    true,
		{run.Waiting, run.Cancelled}: true,
	}
	for _, from := range all {
		for _, to := range all {
			if got, want := run.CanTransition(from, to), legal[[2]run.Status{from, to}]; got != want {
				t.Errorf("CanTransition(%s, %s) = %v, want %v", from, to, got, want)
			}
		}
	}
	if run.CanTransition("bogus", run.Running) || run.CanTransition(run.Running, "bogus") {
		t.Error("an unknown status can transition")
	}
}

func TestCapabilities(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s        run.Status
		terminal bool
		want     []string
	}{
		{run.Queued, false, []string{"cancel"}},
		{run.Running, false, []string{"cancel"}},
		{run.Waiting, false, []string{"cancel"}},
		{run.Completed, true, []string{}},
		{run.Failed, true, []string{}},
		{run.Cancelled, true, []string{}},
	}
	for _, tt := range tests {
		if got := tt.s.Terminal(); got != tt.terminal {
			t.Errorf("%s.Terminal() = %v", tt.s, got)
		}
		got := run.Capabilities(tt.s)
		// Never nil: it is sent as a JSON array.
		if got == nil {
			t.Errorf("Capabilities(%s) is nil", tt.s)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Capabilities(%s) (-want +got):\n%s", tt.s, diff)
		}
	}
}
