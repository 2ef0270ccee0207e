package cli

import (
	"bytes"
	"os"
	"testing"
)

// Colour (and model text drawn as Markdown) only on a terminal, and not
// there when NO_COLOR is set.
func TestColorOutput(t *testing.T) {
	t.Parallel()
	noEnv := func(string) string { return "" }
	noColor := func(k string) string {
		if k == "NO_COLOR" {
			return "1"
		}
		return ""
	}
	if colorOutput(&bytes.Buffer{}, noEnv) {
		t.Error("colour into a buffer")
	}
	f, err := os.Create(t.TempDir() + "/out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if colorOutput(f, noEnv) {
		t.Error("colour into a file")
	}
	// A pseudo-terminal's master is a terminal as the check sees one.
	tty, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer tty.Close()
	if !colorOutput(tty, noEnv) {
		t.Error("no colour on a terminal")
	}
	if colorOutput(tty, noColor) {
		t.Error("colour on a terminal with NO_COLOR set")
	}
}
