package shell

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestCapture(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		writes []string
		head   int
		tail   int
		want   string
		cut    int64
	}{
		{"empty", nil, 4, 4, "", 0},
		{"fits", []string{"abc", "def"}, 4, 4, "abcdef", 0},
		{"exactly", []string{"abcdefgh"}, 4, 4, "abcdefgh", 0},
		{"cut", []string{"abcdefghij"}, 4, 4, "abcd\n… [2 bytes (0 lines) cut from the middle of the output] …\nghij", 2},
		{"many small writes", strings.Split("0123456789abcdefghij", ""), 4, 4, "0123\n… [12 bytes (0 lines) cut from the middle of the output] …\nghij", 12},
		{"one huge write", []string{"ab", strings.Repeat("x", 100), "yz"}, 4, 4, "abxx\n… [96 bytes (0 lines) cut from the middle of the output] …\nxxyz", 96},
		{"cut on lines", []string{"l1\nl2\nl3\nl4\nl5\nl6\n"}, 5, 5, "l1\n… [12 bytes (4 lines) cut from the middle of the output] …\nl6\n", 12},
		// é is two bytes: neither half is kept alone.
		{"cut on runes", []string{"aé" + strings.Repeat("-", 10) + "éb"}, 2, 2, "a\n… [14 bytes (0 lines) cut from the middle of the output] …\nb", 14},
		{"invalid UTF-8", []string{"a\xffb"}, 4, 4, "a\uFFFDb", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := newCapture(tt.head, tt.tail)
			for _, w := range tt.writes {
				c.write([]byte(w))
			}
			got, cut := c.text()
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("text (-want +got):\n%s", diff)
			}
			if cut != tt.cut {
				t.Errorf("cut %d, want %d", cut, tt.cut)
			}
			if !utf8.ValidString(got) {
				t.Errorf("invalid UTF-8: %q", got)
			}
		})
	}
}
