package fs

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests when a goroutine outlives them: grep
// starts a walker and searchers per call and must end them all.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
