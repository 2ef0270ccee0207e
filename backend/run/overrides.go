package run

import (
	"fmt"
	"unicode"

	"steward/backend/event"
)

// The checks of what a run's start (or a command) overrides of its agent.

// checkLimits refuses negative budgets.
func checkLimits(l event.Limits) error {
	if l.MaxSteps < 0 || l.MaxTokens < 0 || l.MaxCostUSD < 0 || l.MaxWallTimeMS < 0 {
		return fmt.Errorf("%w: limits cannot be negative", ErrInvalid)
	}
	return nil
}

// maxModelName bounds a model override: provider model ids are short
// (the longest known are near 100 bytes).
const maxModelName = 200

// checkModel refuses a model override that no provider could name: too
// long, or with spaces or control characters (which would also corrupt
// the request line of some servers).
func checkModel(name string) error {
	if len(name) > maxModelName {
		return fmt.Errorf("%w: model is %d bytes, more than %d", ErrInvalid, len(name), maxModelName)
	}
	for _, r := range name {
		if unicode.IsSpace(r) || unicode.IsControl(r) || r == unicode.ReplacementChar {
			return fmt.Errorf("%w: model %q has a space or control character", ErrInvalid, name)
		}
	}
	return nil
}
