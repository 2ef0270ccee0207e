// Package sandboxtest helps tests that need the command sandbox to work.
package sandboxtest

import (
	"os"
	"testing"

	"steward/backend/sandbox"
)

// Required is the environment variable that says the sandbox must work on
// this machine: make test sets it on Linux, where it installs bubblewrap, so
// that a sandbox that stopped working fails the tests instead of skipping
// them.
const Required = "STEWARD_SANDBOX_REQUIRED"

// Require skips the test, with the reason, when sb cannot work here; when
// Required is set, it fails the test instead.
func Require(tb testing.TB, sb *sandbox.Sandbox) {
	tb.Helper()
	if err := sb.Available(); err != nil {
		if os.Getenv(Required) != "" {
			tb.Fatalf("%v (%s is set: the sandbox must work on this machine)", err, Required)
		}
		tb.Skipf("%v (set %s=1 to fail instead)", err, Required)
	}
}
