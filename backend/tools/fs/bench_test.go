package fs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"steward/backend/tool"
	"steward/backend/tools/fs"
	"steward/backend/workspace"
)

// benchFiles is the size of the generated tree: 100 directories of 10
// directories of 100 files, about 400 bytes each, as a large repository.
const benchFiles = 100_000

// benchTree generates the tree in b.TempDir(), outside the timer, and
// returns a registry and an env to call the tools on it. One file in 1000
// holds "needle", so grep searches everything and shows every match.
func benchTree(b *testing.B) (*tool.Registry, tool.Env) {
	b.Helper()
	b.StopTimer()
	defer b.StartTimer()
	dir := b.TempDir()
	body := strings.Repeat("\tx := compute(a, b, c) // an ordinary line of code\n", 7)
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("*.o\n/build/\nnode_modules/\n*.tmp\n!keep.tmp\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	n := 0
	for i := range 100 {
		for j := range 10 {
			d := filepath.Join(dir, fmt.Sprintf("pkg%02d", i), fmt.Sprintf("sub%d", j))
			if err := os.MkdirAll(d, 0o755); err != nil {
				b.Fatal(err)
			}
			for k := range 100 {
				extra := ""
				if n%1000 == 0 {
					extra = fmt.Sprintf("\t// needle %d\n", n)
				}
				content := fmt.Sprintf("package sub%d\n\nfunc F%d() {\n%s%s}\n", j, k, body, extra)
				if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("file%02d.go", k)), []byte(content), 0o644); err != nil {
					b.Fatal(err)
				}
				n++
			}
		}
	}
	reg := tool.NewRegistry()
	for _, t := range fs.Tools() {
		if err := reg.Register(t); err != nil {
			b.Fatal(err)
		}
	}
	return reg, tool.Env{RunID: "bench", Workspace: dir}
}

func benchCall(b *testing.B, reg *tool.Registry, env tool.Env, name, args, want string) {
	res, err := reg.Call(context.Background(), env, name, json.RawMessage(args))
	if err != nil || res.IsError {
		b.Fatalf("%s: %v %s", name, err, res.Output)
	}
	if !strings.Contains(res.Output, want) {
		b.Fatalf("%s output %.300q lacks %q", name, res.Output, want)
	}
}

// BenchmarkGrep100k searches every file of a 100,000-file tree for a
// regular expression that matches 100 lines.
func BenchmarkGrep100k(b *testing.B) {
	reg, env := benchTree(b)
	for b.Loop() {
		benchCall(b, reg, env, "grep", `{"pattern":"needle [0-9]+0{3}\\b"}`, "pkg99/sub0/file00.go:11: \t// needle 99000\n")
	}
	b.ReportMetric(float64(benchFiles)*float64(b.N)/b.Elapsed().Seconds(), "files/s")
}

// BenchmarkGlob100k walks the same tree for a pattern that every directory
// may hold.
func BenchmarkGlob100k(b *testing.B) {
	reg, env := benchTree(b)
	for b.Loop() {
		benchCall(b, reg, env, "glob", `{"pattern":"**/file0?.go"}`, "… 9000 more files not shown")
	}
	b.ReportMetric(float64(benchFiles)*float64(b.N)/b.Elapsed().Seconds(), "files/s")
}

// BenchmarkWrite1MB writes a 1 MB file over a 1 MB file with write_file,
// without a journal and with the run's journal (read-before-write check,
// both contents hashed and kept as blobs): the difference is what
// journaling a write costs.
func BenchmarkWrite1MB(b *testing.B) {
	for _, journaled := range []bool{false, true} {
		name := "plain"
		if journaled {
			name = "journaled"
		}
		b.Run(name, func(b *testing.B) {
			dir := b.TempDir()
			reg := tool.NewRegistry()
			for _, tl := range fs.Tools() {
				if err := reg.Register(tl); err != nil {
					b.Fatal(err)
				}
			}
			env := tool.Env{Workspace: dir}
			var j *workspace.Journal
			if journaled {
				blobs, err := workspace.NewBlobs(filepath.Join(b.TempDir(), "blobs"))
				if err != nil {
					b.Fatal(err)
				}
				j = workspace.NewJournal(blobs)
				env.Files = j
			}
			contents := make([]json.RawMessage, 2)
			for i := range contents {
				// Distinct contents: a blob kept already would cost nothing.
				c := strings.Repeat(fmt.Sprintf("line %d of a large generated file\n", i), 1<<20/32)
				contents[i], _ = json.Marshal(map[string]string{"path": "big.txt", "content": c})
			}
			b.ResetTimer()
			for i := range b.N {
				b.StopTimer()
				// Each round writes a content never seen before (the first
				// line differs), so every blob is new.
				var a map[string]string
				_ = json.Unmarshal(contents[i%2], &a)
				a["content"] = fmt.Sprintf("round %d\n", i) + a["content"]
				args, _ := json.Marshal(a)
				b.StartTimer()
				res, err := reg.Call(context.Background(), env, "write_file", args)
				if err != nil || res.IsError {
					b.Fatalf("write_file: %+v, %v", res, err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/write")
		})
	}
}
