package app

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWindowTitle(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pending int
		want    string
	}{
		{0, "Steward"},
		{-1, "Steward"},
		{1, "(1) Steward — 1 waiting"},
		{12, "(12) Steward — 12 waiting"},
	}
	for _, tt := range tests {
		if got := windowTitle("Steward", tt.pending); got != tt.want {
			t.Errorf("windowTitle(%d) = %q, want %q", tt.pending, got, tt.want)
		}
	}
}

// fakeNotifier is a notifier whose answer the test decides.
type fakeNotifier struct {
	notify func(ctx context.Context, n Notice) error
}

func (f fakeNotifier) Notify(ctx context.Context, n Notice) error { return f.notify(ctx, n) }

func TestAttend(t *testing.T) {
	t.Parallel()
	reports := []Attention{
		{Pending: 0},
		{Pending: 1, Notice: &Notice{Title: "Steward: approval needed", Body: "shell in run run_1"}},
		{Pending: 2, Notice: &Notice{Title: "Steward: question from an agent", Body: "Why? (run run_1)"}},
		{Pending: 2, Notice: &Notice{Title: "Steward: approval needed", Body: "git in run run_2"}}, // one answered, one new
		{Pending: 0},
	}
	tests := []struct {
		name      string
		err       error // of every notification
		wantNoted []Notice
		wantLog   []string
	}{
		{
			name: "notifications raised",
			wantNoted: []Notice{
				{Title: "Steward: approval needed", Body: "shell in run run_1"},
				{Title: "Steward: question from an agent", Body: "Why? (run run_1)"},
				{Title: "Steward: approval needed", Body: "git in run run_2"},
			},
		},
		{
			name: "no notification service: said once",
			err:  errors.New("gdbus: exit status 1: Error: GDBus.Error:org.freedesktop.DBus.Error.ServiceUnknown"),
			wantNoted: []Notice{
				{Title: "Steward: approval needed", Body: "shell in run run_1"},
				{Title: "Steward: question from an agent", Body: "Why? (run run_1)"},
				{Title: "Steward: approval needed", Body: "git in run run_2"},
			},
			wantLog: []string{"desktop: cannot raise a desktop notification (gdbus: exit status 1: Error: GDBus.Error:org.freedesktop.DBus.Error.ServiceUnknown); " +
				"the window title still counts what waits. Not repeated."},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var titles, logged []string
			var noted []Notice
			n := fakeNotifier{notify: func(ctx context.Context, n Notice) error {
				if _, ok := ctx.Deadline(); !ok {
					t.Error("Notify without a deadline")
				}
				noted = append(noted, n)
				return tt.err
			}}
			source := func(ctx context.Context, show func(Attention)) {
				for _, a := range reports {
					show(a)
				}
			}
			logf := func(format string, args ...any) { logged = append(logged, fmt.Sprintf(format, args...)) }
			attend(context.Background(), source, "Steward", func(s string) { titles = append(titles, s) }, n, logf)

			// The title changes only with the count.
			wantTitles := []string{"Steward", "(1) Steward — 1 waiting", "(2) Steward — 2 waiting", "Steward"}
			if diff := cmp.Diff(wantTitles, titles); diff != "" {
				t.Errorf("titles (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantNoted, noted); diff != "" {
				t.Errorf("notifications (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantLog, logged); diff != "" {
				t.Errorf("log (-want +got):\n%s", diff)
			}
		})
	}
}

// Once the window is closing, a late report still sets the title (harmless) but raises no
// notification.
func TestAttendAfterCancel(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	n := fakeNotifier{notify: func(context.Context, Notice) error {
		t.Error("Notify called after cancel")
		return nil
	}}
	source := func(ctx context.Context, show func(Attention)) {
		show(Attention{Pending: 1, Notice: &Notice{Title: "t", Body: "b"}})
	}
	attend(ctx, source, "Steward", func(string) {}, n, func(string, ...any) { t.Error("logged after cancel") })
}
