//go:build unix

package fs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"syscall"
	"testing"

	"steward/backend/tool"
	"steward/backend/tools/fs"
)

// searchTree is a workspace with what glob and grep must find and skip.
func searchTree(t *testing.T) fixture {
	t.Helper()
	f := newFixture(t)
	files := map[string]string{
		".gitignore":                "*.log\nbuild/\n/root-only.txt\n!keep.log\n",
		"main.go":                   "package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n",
		"README.md":                 "# Hello\nSay hello.\n",
		"root-only.txt":             "hello ignored at the root\n",
		"a.txt":                     "a file before the a/ directory\n",
		"a/b.txt":                   "hello from a/b\n",
		"src/util.go":               "package src\n\n// Hello says hello.\nfunc Hello() string { return \"HELLO\" }\n",
		"src/util_test.go":          "package src\n",
		"src/.gitignore":            "generated.go\n!debug.log\n",
		"src/generated.go":          "package src // hello, generated\n",
		"src/debug.log":             "hello from a re-included log\n",
		"src/deep/x/y/z.go":         "package y // hello deep\n",
		"src/deep/root-only.txt":    "hello: not at the root, so not ignored\n",
		"build/out.go":              "package out // hello\n",
		"app.log":                   "hello log\n",
		"keep.log":                  "hello kept\n",
		".git/config":               "hello git\n",
		".git/info/exclude":         "excluded.txt\n",
		"excluded.txt":              "hello excluded\n",
		".steward-AAAAAAAAAAAA.tmp": "hello temp\n",
		"bin.dat":                   "hello\x00binary",
		"odd\nname.txt":             "hello odd\n",
		"crlf.txt":                  "hello\r\nworld\r\n",
	}
	for name, content := range files {
		writeFile(t, f.path(name), content)
	}
	symlink(t, "src", f.path("srclink"))
	symlink(t, "../outside", f.path("out"))
	symlink(t, "main.go", f.path("mainlink.go"))
	if err := syscall.Mkfifo(f.path("fifo.go"), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

func TestGlob(t *testing.T) {
	t.Parallel()
	f := searchTree(t)
	for i := range fs.MaxGlobResults + 5 {
		writeFile(t, f.path(fmt.Sprintf("many/f%04d.txt", i)), "")
	}
	var many strings.Builder
	for i := range fs.MaxGlobResults {
		fmt.Fprintf(&many, "many/f%04d.txt\n", i)
	}
	many.WriteString("… 5 more files not shown (glob shows the first 1000); use a narrower pattern or path\n")

	tests := []struct {
		name string
		args any
		want want
	}{
		{"all go files", `{"pattern":"**/*.go"}`, want{output: "main.go\nsrc/deep/x/y/z.go\nsrc/util.go\nsrc/util_test.go\n"}},
		{"top level only", `{"pattern":"*.go"}`, want{output: "main.go\n"}},
		{"sorted as paths", `{"pattern":"{a.txt,a/*}"}`, want{output: "a.txt\na/b.txt\n"}},
		{"under a path", `{"pattern":"**/*.go","path":"src/deep"}`, want{output: "src/deep/x/y/z.go\n"}},
		{"literal prefix", `{"pattern":"src/*_test.go"}`, want{output: "src/util_test.go\n"}},
		{"braces", `{"pattern":"**/*.{md,log}"}`, want{output: "README.md\nkeep.log\nsrc/debug.log\n"}},
		{"nested ignore is relative", `{"pattern":"**/root-only.txt"}`, want{output: "src/deep/root-only.txt\n"}},
		{"named ignored directory", `{"pattern":"build/*"}`, want{output: "build/out.go\n"}},
		{"odd names quoted", `{"pattern":"odd*"}`, want{output: "\"odd\\nname.txt\"\n"}},
		{"no match", `{"pattern":"**/*.rs"}`, want{output: "no files match **/*.rs in ./"}},
		{"capped", `{"pattern":"many/*"}`, want{output: many.String()}},
		{"absolute inside", map[string]any{"pattern": f.path("src") + "/*.go"}, want{output: "src/util.go\nsrc/util_test.go\n"}},

		{"empty", `{"pattern":""}`, want{code: tool.CodeInvalidArguments}},
		{"bad class", `{"pattern":"[a"}`, want{code: fs.CodeInvalidPattern}},
		{"dot dot after a wildcard", `{"pattern":"*/../x"}`, want{code: fs.CodeInvalidPattern, contains: []string{"path"}}},
		{"outside", `{"pattern":"../**"}`, want{code: fs.CodeOutside}},
		{"path outside", `{"pattern":"**","path":"out"}`, want{code: fs.CodeOutside}},
		{"path is a file", `{"pattern":"*","path":"main.go"}`, want{code: fs.CodeNotDirectory}},
		{"path missing", `{"pattern":"*","path":"nope"}`, want{code: fs.CodeNotFound}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			check(t, f.call(t, "glob", tt.args), tt.want)
		})
	}
}

func TestGrep(t *testing.T) {
	t.Parallel()
	f := searchTree(t)
	writeFile(t, f.path("big/huge.txt"), "hello\n"+strings.Repeat("x", fs.MaxGrepFileBytes))
	for i := range 30 {
		writeFile(t, f.path(fmt.Sprintf("many/f%02d.txt", i)), "match 1\nmatch 2\n")
	}
	f.reg.MaxOutput = 1 << 20

	var manyCapped strings.Builder
	for i := range 5 {
		fmt.Fprintf(&manyCapped, "many/f%02d.txt:1: match 1\nmany/f%02d.txt:2: match 2\n", i, i)
	}
	manyCapped.WriteString("… 50 more matching lines in 25 files not shown; raise max_results (at most 2000) or narrow the search with path, glob or a more precise pattern\n")

	tests := []struct {
		name string
		args any
		want want
	}{
		{"case sensitive", `{"pattern":"hello","glob":"*.go"}`, want{output: "main.go:4: \tprintln(\"hello\")\nsrc/deep/x/y/z.go:1: package y // hello deep\nsrc/util.go:3: // Hello says hello.\n"}},
		{"case insensitive", `{"pattern":"HELLO","path":"src","case_insensitive":true}`, want{output: "src/debug.log:1: hello from a re-included log\nsrc/deep/root-only.txt:1: hello: not at the root, so not ignored\nsrc/deep/x/y/z.go:1: package y // hello deep\nsrc/util.go:3: // Hello says hello.\nsrc/util.go:4: func Hello() string { return \"HELLO\" }\n"}},
		{"whole workspace skips what it must", `{"pattern":"^hello"}`, want{output: "a/b.txt:1: hello from a/b\ncrlf.txt:1: hello\nkeep.log:1: hello kept\n\"odd\\nname.txt\":1: hello odd\nsrc/debug.log:1: hello from a re-included log\nsrc/deep/root-only.txt:1: hello: not at the root, so not ignored\n(skipped 1 binary file, 1 file over 4 MiB)\n"}},
		{"anchor at the end, crlf", `{"pattern":"world$","path":"crlf.txt"}`, want{output: "crlf.txt:2: world\n"}},
		{"one ignored file, named", `{"pattern":"hello","path":"app.log"}`, want{output: "app.log:1: hello log\n"}},
		{"glob with a path", `{"pattern":"package","glob":"deep/**/*.go","path":"src"}`, want{output: "src/deep/x/y/z.go:1: package y // hello deep\n"}},
		{"odd name", `{"pattern":"odd","glob":"odd*"}`, want{output: "\"odd\\nname.txt\":1: hello odd\n"}},
		{"capped", `{"pattern":"match","path":"many","max_results":10}`, want{output: manyCapped.String()}},
		{"no match", `{"pattern":"zebra"}`, want{output: "no matches for \"zebra\" in the workspace (44 files searched)\n(skipped 1 binary file, 1 file over 4 MiB)\n"}},
		{"no file matches the glob", `{"pattern":"x","glob":"*.rs","path":"src"}`, want{output: "no files in src match glob \"*.rs\"\n"}},

		{"bad regexp", `{"pattern":"func("}`, want{code: fs.CodeInvalidPattern, contains: []string{"missing closing )", "escape"}}},
		{"empty pattern", `{"pattern":""}`, want{code: tool.CodeInvalidArguments}},
		{"bad glob", `{"pattern":"x","glob":"[a"}`, want{code: fs.CodeInvalidPattern}},
		{"negative max", `{"pattern":"x","max_results":-1}`, want{code: tool.CodeInvalidArguments}},
		{"outside", `{"pattern":"sentinel","path":".."}`, want{code: fs.CodeOutside}},
		{"through a link outside", `{"pattern":"sentinel","path":"out"}`, want{code: fs.CodeOutside}},
		{"named pipe", `{"pattern":"x","path":"fifo.go"}`, want{code: fs.CodeNotRegular}},
		{"missing", `{"pattern":"x","path":"nope"}`, want{code: fs.CodeNotFound}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			check(t, f.call(t, "grep", tt.args), tt.want)
		})
	}
}

// TestGrepStopsEarly: a pattern that matches everywhere in a large tree
// stops after the count budget and says "at least".
func TestGrepStopsEarly(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for i := range 2500 {
		writeFile(t, f.path(fmt.Sprintf("d%d/f%04d.txt", i%10, i)), "x\n")
	}
	res := f.call(t, "grep", `{"pattern":"x","max_results":5}`)
	if res.IsError {
		t.Fatal(res.Output)
	}
	lines := strings.Split(strings.TrimSuffix(res.Output, "\n"), "\n")
	if len(lines) != 6 || lines[0] != "d0/f0000.txt:1: x" || lines[4] != "d0/f0040.txt:1: x" {
		t.Fatalf("output %q", res.Output)
	}
	if want := "… at least 2000 more matching lines not shown (the search stopped early)"; !strings.HasPrefix(lines[5], want) {
		t.Errorf("last line %q, want %q…", lines[5], want)
	}
}

// TestTempFilesHidden: a temp file left by a crashed write is not shown.
func TestTempFilesHidden(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	writeFile(t, f.path("a.txt"), "visible\n")
	writeFile(t, f.path("d/.steward-ABCDEFGHIJKL.tmp"), "visible\n")
	writeFile(t, f.path(".steward-ABCDEFGHIJKL.tmp"), "visible\n")
	check(t, f.call(t, "list_dir", `{}`), want{output: "./ (2 entries)\na.txt (8 bytes)\nd/\n"})
	check(t, f.call(t, "list_dir", `{"path":"d"}`), want{output: "d/ is empty"})
	check(t, f.call(t, "glob", `{"pattern":"**"}`), want{output: "a.txt\n"})
	check(t, f.call(t, "grep", `{"pattern":"visible"}`), want{output: "a.txt:1: visible\n"})
}

// TestGrepCancelled: a cancelled search ends, with all its goroutines (the
// package's TestMain checks for leaks), as a cancelled result.
func TestGrepCancelled(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for i := range 200 {
		writeFile(t, f.path(fmt.Sprintf("d%d/f%d.txt", i%5, i)), "x\n")
	}
	var grep tool.Tool
	for _, tl := range fs.Tools() {
		if tl.Spec().Name == "grep" {
			grep = tl
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := grep.Run(ctx, f.env, json.RawMessage(`{"pattern":"x"}`))
	if err != nil || res.Code != tool.CodeCancelled {
		t.Errorf("grep with a cancelled context: %+v, %v", res, err)
	}
}
