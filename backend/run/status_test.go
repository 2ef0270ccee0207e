package run_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"steward/backend/run"
)

func TestCanTransition(t *testing.T) {
	t.Parallel()
	// legal lists every move the state machine allows; anything else,
	// staying put included (but paused → paused, a new reason), is illegal.
	legal := map[[2]run.Status]bool{
		{run.Queued, run.Running}:    true,
		{run.Queued, run.Paused}:     true,
		{run.Queued, run.Failed}:     true,
		{run.Queued, run.Cancelled}:  true,
		{run.Running, run.Pausing}:   true,
		{run.Running, run.Paused}:    true,
		{run.Running, run.Waiting}:   true,
		{run.Running, run.Completed}: true,
		{run.Running, run.Failed}:    true,
		{run.Running, run.Cancelled}: true,
		{run.Pausing, run.Paused}:    true,
		{run.Pausing, run.Completed}: true,
		{run.Pausing, run.Failed}:    true,
		{run.Pausing, run.Cancelled}: true,
		{run.Waiting, run.Running}:   true,
		{run.Waiting, run.Pausing}:   true,
		{run.Waiting, run.Paused}:    true,
		{run.Waiting, run.Failed}:    true,
		{run.Waiting, run.Cancelled}: true,
		{run.Paused, run.Running}:    true,
		{run.Paused, run.Paused}:     true,
		{run.Paused, run.Failed}:     true,
		{run.Paused, run.Cancelled}:  true,
		// A follow-up: a new turn of a run that ended.
		{run.Completed, run.Running}: true,
		{run.Failed, run.Running}:    true,
		{run.Cancelled, run.Running}: true,
	}
	if len(run.Statuses) != 8 {
		t.Fatalf("%d statuses, want 8", len(run.Statuses))
	}
	for _, from := range run.Statuses {
		for _, to := range run.Statuses {
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
		s           run.Status
		interrupted bool
		terminal    bool
		want        []string
	}{
		{run.Queued, false, false, []string{"pause", "cancel", "break", "unbreak"}},
		{run.Running, false, false, []string{"pause", "steer", "cancel", "fork", "break", "unbreak"}},
		{run.Waiting, false, false, []string{"pause", "steer", "cancel", "fork", "break", "unbreak"}},
		{run.Pausing, false, false, []string{"steer", "cancel", "fork", "break", "unbreak"}},
		{run.Paused, false, false, []string{"continue", "step", "steer", "cancel", "fork", "break", "unbreak"}},
		{run.Paused, true, false, []string{"retry", "skip", "steer", "cancel", "fork", "break", "unbreak"}},
		{run.Completed, false, true, []string{"fork", "follow_up"}},
		{run.Failed, false, true, []string{"fork", "follow_up"}},
		{run.Cancelled, false, true, []string{"fork", "follow_up"}},
	}
	for _, tt := range tests {
		if got := tt.s.Terminal(); got != tt.terminal {
			t.Errorf("%s.Terminal() = %v", tt.s, got)
		}
		got := run.Capabilities(tt.s, tt.interrupted)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Capabilities(%s, %v) (-want +got):\n%s", tt.s, tt.interrupted, diff)
		}
	}
}
