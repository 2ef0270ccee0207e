package fault_test

import (
	"errors"
	"fmt"
	"testing"

	"steward/backend/fault"
)

func TestOf(t *testing.T) {
	t.Parallel()
	errMissing := fault.New(fault.NotFound, "run not found")
	errBad := fault.New(fault.Invalid, "invalid run request")
	plain := errors.New("disk on fire")
	tests := []struct {
		name string
		err  error
		want fault.Kind
	}{
		{"a sentinel", errMissing, fault.NotFound},
		{"a wrapped sentinel", fmt.Errorf("open run r1: %w", errMissing), fault.NotFound},
		{"twice wrapped", fmt.Errorf("api: %w", fmt.Errorf("open run r1: %w", errBad)), fault.Invalid},
		{"Errorf", fault.Errorf(fault.Conflict, "interaction %s is answered", "ia1"), fault.Conflict},
		{"Wrap", fault.Wrap(fault.Unavailable, plain), fault.Unavailable},
		{"a kind itself", fmt.Errorf("x: %w", fault.Unsupported), fault.Unsupported},
		// An invalid request whose cause is a failed lookup is invalid:
		// Kinds orders the kinds.
		{"two kinds", fmt.Errorf("%w: agent: %w", errBad, errMissing), fault.Invalid},
		{"two kinds, the other order", fmt.Errorf("%w: %w", errMissing, errBad), fault.Invalid},
		{"joined", errors.Join(plain, errMissing), fault.NotFound},
		{"no kind", plain, fault.Internal},
		{"wrapped, no kind", fmt.Errorf("x: %w", plain), fault.Internal},
		{"nil", nil, fault.Internal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := fault.Of(tt.err); got != tt.want {
				t.Errorf("Of(%v) = %s, want %s", tt.err, got, tt.want)
			}
		})
	}
}

// TestSentinelsStayThemselves: an error of a kind is still the sentinel or
// error under it for errors.Is and As, and reads as its text alone.
func TestSentinelsStayThemselves(t *testing.T) {
	t.Parallel()
	errA := fault.New(fault.Invalid, "invalid agent")
	errB := fault.New(fault.Invalid, "invalid agent")
	wrapped := fmt.Errorf("%w: name is empty", errA)
	if !errors.Is(wrapped, errA) || errors.Is(wrapped, errB) {
		t.Error("two sentinels of one kind and text are told apart only by identity; errors.Is confused them")
	}
	if !errors.Is(wrapped, fault.Invalid) || errors.Is(wrapped, fault.NotFound) {
		t.Error("errors.Is does not see the kind through %w")
	}
	if got := wrapped.Error(); got != "invalid agent: name is empty" {
		t.Errorf("text = %q", got)
	}
	var pe *pathError
	err := fault.Wrap(fault.NotFound, fmt.Errorf("read: %w", &pathError{"a.txt"}))
	if !errors.As(err, &pe) || pe.path != "a.txt" || err.Error() != "read: no a.txt" {
		t.Errorf("Wrap hides the error it wraps: %v", err)
	}
	if fault.Wrap(fault.Invalid, nil) != nil {
		t.Error("Wrap(nil) is not nil")
	}
	if e := fault.Errorf(fault.Conflict, "x %w", errPlain); !errors.Is(e, errPlain) || fault.Of(e) != fault.Conflict {
		t.Errorf("Errorf(%%w) = %v: kind %s, wraps the error %v", e, fault.Of(e), errors.Is(e, errPlain))
	}
	// Of goes by Kinds, not by depth: an invalid cause keeps a conflict
	// around it invalid, as the API's answers always did.
	if e := fault.Errorf(fault.Conflict, "x %w", errA); fault.Of(e) != fault.Invalid {
		t.Errorf("Of(conflict around invalid) = %s, want invalid", fault.Of(e))
	}
}

var errPlain = errors.New("plain")

type pathError struct{ path string }

func (e *pathError) Error() string { return "no " + e.path }
