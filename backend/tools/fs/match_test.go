package fs

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestGlobMatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern string
		yes, no []string
	}{
		{"*.go", []string{"a.go", ".x.go"}, []string{"a/b.go", "a.go/x", "a.gox"}},
		{"**/*.go", []string{"a.go", "a/b.go", "a/b/c/d.go"}, []string{"a.txt", "a/b.go/c"}},
		{"src/**/*_test.go", []string{"src/a_test.go", "src/x/y/a_test.go"}, []string{"a_test.go", "src/a.go", "lib/src/a_test.go"}},
		{"src/**", []string{"src/a", "src/a/b/c"}, []string{"srcx/a", "a/src/b"}},
		{"**", []string{"a", "a/b/c"}, nil},
		{"a/**/b", []string{"a/b", "a/x/b", "a/x/y/b"}, []string{"a/b/c", "b"}},
		{"**/**/x", []string{"x", "a/x"}, []string{"xa"}},
		{"*.{ts,tsx}", []string{"a.ts", "a.tsx"}, []string{"a.t", "a.{ts,tsx}"}},
		{"{src,lib}/**/*.{go,md}", []string{"src/a.go", "lib/x/y.md"}, []string{"doc/a.go", "src/a.txt"}},
		{"a{b,{c,d}}e", []string{"abe", "ace", "ade"}, []string{"ae"}},
		{"a{b", []string{"a{b"}, []string{"ab"}},
		{`\{x\}`, []string{"{x}"}, []string{"x"}},
		{"?.[ch]", []string{"a.c", "b.h"}, []string{"ab.c", "a.o"}},
		{"./x/./y", []string{"x/y"}, nil},
		{"x//y", []string{"x/y"}, nil},
	}
	for _, tt := range tests {
		p, err := compileGlob(tt.pattern)
		if err != nil {
			t.Fatalf("%q: %v", tt.pattern, err)
		}
		for _, s := range tt.yes {
			if !p.match(s) {
				t.Errorf("%q does not match %q", tt.pattern, s)
			}
		}
		for _, s := range tt.no {
			if p.match(s) {
				t.Errorf("%q matches %q", tt.pattern, s)
			}
		}
	}
}

func TestGlobPrune(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern string
		yes, no []string
	}{
		{"src/*/x.go", []string{"src", "src/a"}, []string{"lib", "src/a/b"}},
		{"**/x.go", []string{"a", "a/b/c"}, nil},
		{"a/**/x", []string{"a", "a/b/c"}, []string{"b"}},
		{"*.go", nil, []string{"a"}},
	}
	for _, tt := range tests {
		p, err := compileGlob(tt.pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range tt.yes {
			if !p.mayMatchBelow(d) {
				t.Errorf("%q prunes %q", tt.pattern, d)
			}
		}
		for _, d := range tt.no {
			if p.mayMatchBelow(d) {
				t.Errorf("%q enters %q", tt.pattern, d)
			}
		}
	}
}

func TestGlobErrors(t *testing.T) {
	t.Parallel()
	for _, p := range []string{"[a", "a/[", "**/../x", "*/..", strings.Repeat("{a,b}", 9)} {
		if _, err := compileGlob(p); err == nil {
			t.Errorf("%q compiled", p)
		}
	}
}

func TestLiteralPrefix(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, dir, rest string }{
		{"*.go", "", "*.go"},
		{"src/**/*.go", "src", "**/*.go"},
		{"a/b/c.go", "a/b", "c.go"},
		{"../**", "..", "**"},
		{"/etc/*", "/etc", "*"},
		{"/x", "/", "x"},
		{"a/{b,c}/d", "a", "{b,c}/d"},
		{"x", "", "x"},
	}
	for _, tt := range tests {
		dir, rest := literalPrefix(tt.in)
		if dir != tt.dir || rest != tt.rest {
			t.Errorf("literalPrefix(%q) = %q, %q; want %q, %q", tt.in, dir, rest, tt.dir, tt.rest)
		}
	}
}

func TestIgnore(t *testing.T) {
	t.Parallel()
	root := parseIgnore("", []byte(strings.Join([]string{
		"# a comment",
		"",
		"*.log",
		"!keep.log",
		"build/",
		"/top.txt",
		"docs/*.tmp",
		"**/gen/**",
		`\#hash`,
		`\!bang`,
		"trailing   ",
		`space\ `,
		"[!a]x",
		"a**b",
		"[",
	}, "\r\n")))
	sub := parseIgnore("sub", []byte("!*.log\nlocal\n/anchored\n"))
	ig := (*ignores)(nil).push("", root).push("sub", sub)
	tests := []struct {
		path  string
		dir   bool
		ignor bool
	}{
		{"a.log", false, true},
		{"x/y/a.log", false, true},
		{"keep.log", false, false},
		{"build", true, true},
		{"build", false, false}, // a file named build: "build/" is for directories
		{"x/build", true, true},
		{"top.txt", false, true},
		{"x/top.txt", false, false},
		{"docs/a.tmp", false, true},
		{"x/docs/a.tmp", false, false},
		{"gen/a", false, true},
		{"x/gen/y/z", false, true},
		{"#hash", false, true},
		{"!bang", false, true},
		{"trailing", false, true},
		{"space ", false, true},
		{"bx", false, true},
		{"ax", false, false},
		{"aXYb", false, true},
		{"main.go", false, false},
		{"sub/a.log", false, false}, // re-included by the deeper file
		{"sub/deeper/a.log", false, false},
		{"sub/local", false, true},
		{"sub/x/local", false, true},
		{"sub/anchored", false, true},
		{"sub/x/anchored", false, false},
		{"anchored", false, false},
	}
	for _, tt := range tests {
		if got := ig.ignored(tt.path, tt.dir); got != tt.ignor {
			t.Errorf("ignored(%q, dir %v) = %v, want %v", tt.path, tt.dir, got, tt.ignor)
		}
	}
}

func TestLineMatcher(t *testing.T) {
	t.Parallel()
	type hit struct {
		N    int
		Line string
	}
	tests := []struct {
		expr string
		ci   bool
		data string
		want []hit
	}{
		{"foo", false, "a\nfoo\nb foo\nfo\n", []hit{{2, "foo"}, {3, "b foo"}}},
		{"^foo", false, "foo\n foo\nfoo bar", []hit{{1, "foo"}, {3, "foo bar"}}},
		{"foo$", false, "a foo\nfoo bar\nfoo", []hit{{1, "a foo"}, {3, "foo"}}},
		{"foo$", false, "a foo\r\nfoo bar\r\n", []hit{{1, "a foo"}}},
		{`\Afoo`, false, "foo\nx foo\nfoo\n", []hit{{1, "foo"}, {3, "foo"}}},
		{`x\z`, false, "ax\nxb\n", []hit{{1, "ax"}}},
		{"FOO", true, "foo\nFoO\nbar\n", []hit{{1, "foo"}, {2, "FoO"}}},
		{`a\sb`, false, "a\nb\na b\n", []hit{{3, "a b"}}},
		{`\s`, false, "ab\ncd\ne f\n", []hit{{3, "e f"}}},
		{"x*", false, "a\n\nb", []hit{{1, "a"}, {2, ""}, {3, "b"}}},
		{"[^a]", false, "a\naa\nab\n", []hit{{3, "ab"}}},
		{"z", false, "", nil},
		{"é", false, "caf\xe9\ncafé\n", []hit{{2, "café"}}},
	}
	for _, tt := range tests {
		m, err := compileLines(tt.expr, tt.ci)
		if err != nil {
			t.Fatal(err)
		}
		var got []hit
		m.each([]byte(tt.data), func(n int, line []byte, loc []int) bool {
			got = append(got, hit{n, string(line)})
			return true
		})
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%q in %q (-want +got):\n%s", tt.expr, tt.data, diff)
		}
	}
}

func TestGrepLine(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 1000) + "NEEDLE" + strings.Repeat("b", 1000)
	got := grepLine("x.go", 3, []byte(long), []int{1000, 1006})
	if !strings.HasPrefix(got, "x.go:3: …") || !strings.HasSuffix(got, "…\n") || !strings.Contains(got, "NEEDLE") || len(got) > grepLineBytes+40 {
		t.Errorf("long line shown as %q", got)
	}
	if got := grepLine("odd\nname", 1, []byte("caf\xe9"), []int{0, 1}); got != "\"odd\\nname\":1: caf\uFFFD\n" {
		t.Errorf("odd line shown as %q", got)
	}
	multi := strings.Repeat("é", 400)
	if got := grepLine("m", 1, []byte(multi), []int{300, 302}); !strings.Contains(got, "é") || strings.ContainsRune(got, '\uFFFD') {
		t.Errorf("a line cut inside a rune: %q", got)
	}
}

func TestExpandBraces(t *testing.T) {
	t.Parallel()
	got, err := expandBraces("{a,b}/{c,d{e,f}}")
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	want := []string{"a/c", "a/de", "a/df", "b/c", "b/de", "b/df"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
