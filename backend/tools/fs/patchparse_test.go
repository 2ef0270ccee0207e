package fs

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParsePatch(t *testing.T) {
	t.Parallel()
	type fileSummary struct {
		Old, New      string
		Hunks         int
		Old0, New0    []string // the first hunk's lines
		OldEOL        bool     // the first hunk's old side ends without "\n"
		NewEOL        bool
		EmptyNew, Del bool
	}
	summarize := func(fs []*filePatch) []fileSummary {
		var out []fileSummary
		for _, f := range fs {
			s := fileSummary{Old: f.oldPath, New: f.newPath, Hunks: len(f.hunks), EmptyNew: f.emptyNew, Del: f.emptyDeleted}
			if len(f.hunks) > 0 {
				h := f.hunks[0]
				s.Old0, s.New0, s.OldEOL, s.NewEOL = h.old, h.new, h.oldNoEOL, h.newNoEOL
			}
			out = append(out, s)
		}
		return out
	}
	tests := []struct {
		name  string
		patch string
		want  []fileSummary
	}{
		{"git diff", "diff --git a/x.go b/x.go\nindex 1..2 100644\n--- a/x.go\n+++ b/x.go\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n",
			[]fileSummary{{Old: "x.go", New: "x.go", Hunks: 1, Old0: []string{"a", "b", "c"}, New0: []string{"a", "B", "c"}}}},
		{"diff -u with times", "--- x.txt\t2024-01-01 10:00:00.000 +0100\n+++ x.txt\t2024-01-02 10:00:00.000 +0100\n@@ -1 +1 @@\n-a\n+b\n",
			[]fileSummary{{Old: "x.txt", New: "x.txt", Hunks: 1, Old0: []string{"a"}, New0: []string{"b"}}}},
		{"no prefix stripping when only one side has it", "--- a/x\n+++ a/x\n@@ -1 +1 @@\n-a\n+b\n",
			[]fileSummary{{Old: "a/x", New: "a/x", Hunks: 1, Old0: []string{"a"}, New0: []string{"b"}}}},
		{"new file", "--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n",
			[]fileSummary{{New: "n.txt", Hunks: 1, Old0: nil, New0: []string{"one", "two"}}}},
		{"deleted file", "--- a/d.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone\n",
			[]fileSummary{{Old: "d.txt", Hunks: 1, Old0: []string{"gone"}}}},
		{"no newline markers", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n",
			[]fileSummary{{Old: "x", New: "x", Hunks: 1, Old0: []string{"a"}, New0: []string{"b"}, OldEOL: true, NewEOL: true}}},
		{"blank context line trimmed", "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n\n-b\n+c\n",
			[]fileSummary{{Old: "x", New: "x", Hunks: 1, Old0: []string{"a", "", "b"}, New0: []string{"a", "", "c"}}}},
		{"counts too small", "--- a/x\n+++ b/x\n@@ -1,1 +1,1 @@\n a\n-b\n+c\n d\n",
			[]fileSummary{{Old: "x", New: "x", Hunks: 1, Old0: []string{"a", "b", "d"}, New0: []string{"a", "c", "d"}}}},
		{"counts too large", "--- a/x\n+++ b/x\n@@ -1,9 +1,9 @@\n-b\n+c\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-1\n+2\n",
			[]fileSummary{{Old: "x", New: "x", Hunks: 1, Old0: []string{"b"}, New0: []string{"c"}}, {Old: "y", New: "y", Hunks: 1, Old0: []string{"1"}, New0: []string{"2"}}}},
		{"removed line that looks like a header", "--- a/x\n+++ b/x\n@@ -1,2 +1,1 @@\n--- a\n a\n",
			[]fileSummary{{Old: "x", New: "x", Hunks: 1, Old0: []string{"-- a", "a"}, New0: []string{"a"}}}},
		{"two hunks, prose around", "Some text first.\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n@@ -10 +10 @@\n-c\n+d\ntrailing words\n",
			[]fileSummary{{Old: "x", New: "x", Hunks: 2, Old0: []string{"a"}, New0: []string{"b"}}}},
		{"quoted path", "--- \"a/sp ace\\tx\"\n+++ \"b/sp ace\\tx\"\n@@ -1 +1 @@\n-a\n+b\n",
			[]fileSummary{{Old: "sp ace\tx", New: "sp ace\tx", Hunks: 1, Old0: []string{"a"}, New0: []string{"b"}}}},
		{"git empty new file", "diff --git a/e.txt b/e.txt\nnew file mode 100644\nindex 0000000..e69de29\n",
			[]fileSummary{{New: "e.txt", EmptyNew: true}}},
		{"git empty deleted file", "diff --git a/e.txt b/e.txt\ndeleted file mode 100644\nindex e69de29..0000000\n",
			[]fileSummary{{Old: "e.txt", Del: true}}},
		{"crlf patch", "--- a/x\r\n+++ b/x\r\n@@ -1 +1 @@\r\n-a\r\n+b\r\n",
			[]fileSummary{{Old: "x", New: "x", Hunks: 1, Old0: []string{"a\r"}, New0: []string{"b\r"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parsePatch(tt.patch)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, summarize(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestParsePatchErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, patch, msg string }{
		{"empty", "", "no file changes found"},
		{"prose only", "please change x\n", "no file changes found"},
		{"hunk without header", "@@ -1 +1 @@\n-a\n+b\n", "line 1 of the patch: a hunk before any ---/+++"},
		{"bad hunk header", "--- a/x\n+++ b/x\n@@ here @@\n-a\n", "line 3 of the patch"},
		{"header without hunks", "--- a/x\n+++ b/x\nnothing\n", "has no @@ hunk"},
		{"no change", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n a\n", "adds and removes nothing"},
		{"rename", "diff --git a/x b/y\nsimilarity index 100%\nrename from x\nrename to y\n", "renames and copies are not supported"},
		{"binary", "diff --git a/x b/x\nBinary files a/x and b/x differ\n", "binary patches"},
		{"mode only", "diff --git a/x b/x\nold mode 100644\nnew mode 100755\n", "only file modes"},
		{"both dev null", "--- /dev/null\n+++ /dev/null\n@@ -0,0 +1 @@\n+a\n", "both paths"},
		{"bad quote", "--- \"a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n", "quoted path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parsePatch(tt.patch)
			var f *failure
			if !errors.As(err, &f) || f.code != CodeInvalidPatch || !strings.Contains(f.msg, tt.msg) {
				t.Errorf("error %v, want %s containing %q", err, CodeInvalidPatch, tt.msg)
			}
		})
	}
}

func TestApplyHunks(t *testing.T) {
	t.Parallel()
	lines := func(n int) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, "line %d\n", i)
		}
		return b.String()
	}
	tests := []struct {
		name, file, patch, want, fail string
	}{
		{"exact", "a\nb\nc\n", "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n", "a\nB\nc\n", ""},
		{"offset within fuzz", "0\n1\n2\na\nb\nc\n", "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n", "0\n1\n2\na\nB\nc\n", ""},
		{"two hunks, the second shifted by the first", "a\nb\nc\nd\ne\nf\n", "@@ -1,2 +1,3 @@\n a\n+x\n b\n@@ -5,2 +6,1 @@\n e\n-f\n", "a\nx\nb\nc\nd\ne\n", ""},
		{"insert at the start", "a\n", "@@ -0,0 +1 @@\n+z\n", "z\na\n", ""},
		{"insert after a line", "a\nb\n", "@@ -1,0 +2 @@\n+z\n", "a\nz\nb\n", ""},
		{"append with no newline marker", "a\nb", "@@ -2 +2,2 @@\n-b\n\\ No newline at end of file\n+b\n+c\n", "a\nb\nc\n", ""},
		{"append, marker forgotten", "a\nb", "@@ -2 +2,2 @@\n b\n+c\n", "a\nb\nc", ""},
		{"remove the final newline", "a\n", "@@ -1 +1 @@\n-a\n+a\n\\ No newline at end of file\n", "a", ""},
		{"keep a missing final newline", "a\nb", "@@ -1 +1 @@\n-a\n+A\n", "A\nb", ""},
		{"crlf file, lf patch", "a\r\nb\r\nc\r\n", "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n", "a\r\nB\r\nc\r\n", ""},
		{"ambiguous context picks the nearest", "x\ny\nx\ny\nx\ny\n", "@@ -3,2 +3,2 @@\n x\n-y\n+Y\n", "x\ny\nx\nY\nx\ny\n", ""},
		{"mismatch", "a\nb\nc\n", "@@ -1,3 +1,3 @@\n a\n-B\n+X\n c\n", "", "the patch expects line 2 to be\n\t\"B\"\nbut the file has\n\t\"b\""},
		{"whitespace mismatch", "\tf()\n", "@@ -1 +1 @@\n-    f()\n+g()\n", "", "differ in whitespace only"},
		{"past the end", "a\n", "@@ -1,2 +1,2 @@\n a\n-b\n+c\n", "", "but the file ends at line 1"},
		{"too far away", lines(300), "@@ -1,2 +1,2 @@\n line 200\n-line 201\n+line D\n", "", "its lines are at line 200 of the file, 199 lines from"},
		{"far but within the fuzz", lines(300), "@@ -100,2 +100,2 @@\n line 200\n-line 201\n+line D\n", strings.Replace(lines(300), "line 201\n", "line D\n", 1), ""},
		{"insert past the end", "a\n", "@@ -5,0 +6 @@\n+z\n", "", "inserts after line 5, but the file has 1 line"},
		{"second hunk mismatches, lines as on disk", "a\nb\nc\nd\n", "@@ -1 +1,3 @@\n-a\n+1\n+2\n+3\n@@ -4 +6 @@\n-D\n+E\n", "", "expects line 4 to be"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fp, err := parsePatch("--- a/f\n+++ b/f\n" + tt.patch)
			if err != nil {
				t.Fatal(err)
			}
			txt := splitText([]byte(tt.file))
			var a applied
			err = txt.apply("f", fp[0], &a)
			if tt.fail != "" {
				var f *failure
				if !errors.As(err, &f) || f.code != CodePatchConflict || !strings.Contains(f.msg, tt.fail) {
					t.Fatalf("error %v, want %s containing %q", err, CodePatchConflict, tt.fail)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := string(txt.bytes()); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
