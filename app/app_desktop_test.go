//go:build desktop

package app

import (
	"context"
	"errors"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// A window itself is tested end to end by .ci/desktop-smoke.sh; these are the refusals that
// happen before GTK starts.
func TestRunRefuses(t *testing.T) {
	tests := []struct {
		name             string
		display, wayland string
		url              string
		want             error
	}{
		{"no display", "", "", "http://127.0.0.1:1/?token=x", ErrNoDisplay},
		{"no url", ":99", "", "", ErrNoURL},
		{"relative url", "", "wayland-0", "/?token=x", ErrNoURL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Not parallel: Setenv.
			t.Setenv("DISPLAY", tt.display)
			t.Setenv("WAYLAND_DISPLAY", tt.wayland)
			if got, want := Available(), tt.display != "" || tt.wayland != ""; got != want {
				t.Errorf("Available() = %v, want %v", got, want)
			}
			err := Run(context.Background(), Options{URL: tt.url})
			if !errors.Is(err, tt.want) {
				t.Errorf("Run: err = %v, want %v", err, tt.want)
			}
		})
	}
}
