package workspace

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
)

// MaxDiff bounds a diff's text; a longer one is cut, and says so.
const MaxDiff = 128 << 10

// Diff returns the unified diff of a file from before to after (nil: the
// file did not exist / was deleted), with a note instead when there is no
// text to show: a binary file, or an identical content.
func Diff(path string, before, after []byte) (diff, note string) {
	switch {
	case binary(before) || binary(after):
		return "", fmt.Sprintf("binary file: %d bytes before, %d after", len(before), len(after))
	case before == nil && after == nil:
		return "", "no difference: the file did not exist before and does not now"
	case before != nil && after != nil && bytes.Equal(before, after):
		return "", "no change in content"
	}
	from, to := "a/"+path, "b/"+path
	if before == nil {
		from = "/dev/null"
	}
	if after == nil {
		to = "/dev/null"
	}
	d, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: lines(before), B: lines(after),
		FromFile: from, ToFile: to, Context: 3,
	})
	if err != nil {
		return "", "no diff: " + err.Error()
	}
	if len(d) > MaxDiff {
		return d[:MaxDiff], fmt.Sprintf("diff cut at %d KiB of %d", MaxDiff>>10, len(d)>>10)
	}
	return d, ""
}

// binary reports whether b looks like a binary file: a NUL byte in its
// first 8 KiB, as git decides.
func binary(b []byte) bool {
	return bytes.IndexByte(b[:min(len(b), 8<<10)], 0) >= 0
}

// lines splits text into lines that keep their newline, as difflib wants
// them, without the empty last line difflib.SplitLines would add (it shows
// as a phantom line in every diff). A last line without a newline gets one.
func lines(text []byte) []string {
	if len(text) == 0 {
		return nil
	}
	out := strings.SplitAfter(string(text), "\n")
	if out[len(out)-1] == "" {
		out = out[:len(out)-1]
	} else {
		out[len(out)-1] += "\n"
	}
	return out
}
