package workspace_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"steward/backend/workspace"
)

func newBlobs(t *testing.T) *workspace.Blobs {
	t.Helper()
	b, err := workspace.NewBlobs(filepath.Join(t.TempDir(), "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestBlobs(t *testing.T) {
	t.Parallel()
	b := newBlobs(t)
	sum, err := b.Put([]byte("hello"))
	if err != nil || sum != workspace.Sum([]byte("hello")) {
		t.Fatalf("Put = %s, %v", sum, err)
	}
	if again, err := b.Put([]byte("hello")); err != nil || again != sum {
		t.Fatalf("second Put = %s, %v", again, err)
	}
	if got, err := b.Get(sum); err != nil || string(got) != "hello" {
		t.Fatalf("Get = %q, %v", got, err)
	}
	for _, bad := range []string{"", "../../etc/passwd", strings.Repeat("z", 64), workspace.Sum([]byte("never kept"))} {
		if _, err := b.Get(bad); !errors.Is(err, workspace.ErrNoBlob) {
			t.Errorf("Get(%q) = %v, want ErrNoBlob", bad, err)
		}
	}
	big := make([]byte, workspace.MaxBlob+1)
	bigSum, err := b.Put(big)
	if err != nil || bigSum != workspace.Sum(big) {
		t.Fatalf("Put(big) = %s, %v", bigSum, err)
	}
	if _, err := b.Get(bigSum); !errors.Is(err, workspace.ErrNoBlob) {
		t.Fatalf("a content over MaxBlob was kept: %v", err)
	}
}

// Read before write, in all its cases.
func TestJournalReadBeforeWrite(t *testing.T) {
	t.Parallel()
	v1, v2 := []byte("one"), []byte("two")
	tests := []struct {
		name    string
		do      func(j *workspace.Journal)
		current []byte // nil: the file does not exist
		want    string // "" allowed
	}{
		{"a new file needs no read", func(*workspace.Journal) {}, nil, ""},
		{"an unread file is refused", func(*workspace.Journal) {}, v1, "has not read it"},
		{"read, then write", func(j *workspace.Journal) { j.Read("a.txt", v1) }, v1, ""},
		{"changed on disk since the read", func(j *workspace.Journal) { j.Read("a.txt", v1) }, v2, "changed on disk since"},
		{"own write counts as read", func(j *workspace.Journal) { _ = j.Changed("a.txt", nil, v2) }, v2, ""},
		{"another file's read does not count", func(j *workspace.Journal) { j.Read("b.txt", v1) }, v1, "has not read it"},
		{"an external change voids the read", func(j *workspace.Journal) {
			j.Read("a.txt", v1)
			j.Observe("a.txt", workspace.Sum(v2), 3, false)
		}, v2, "has not read it"},
		{"read again after the external change", func(j *workspace.Journal) {
			j.Read("a.txt", v1)
			j.Observe("a.txt", workspace.Sum(v2), 3, false)
			j.Read("a.txt", v2)
		}, v2, ""},
		{"deleted since the read: may be created", func(j *workspace.Journal) { j.Read("a.txt", v1) }, nil, ""},
		{"an undo since the read", func(j *workspace.Journal) {
			j.Read("a.txt", v1)
			j.Expect("a.txt", workspace.Sum(v2))
		}, v2, "changed on disk since"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			j := workspace.NewJournal(newBlobs(t))
			tc.do(j)
			err := j.CheckWrite("a.txt", tc.current, tc.current != nil)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("CheckWrite = %v, want allowed", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("CheckWrite = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestJournalChangesAndObserve(t *testing.T) {
	t.Parallel()
	b := newBlobs(t)
	j := workspace.NewJournal(b)
	if err := j.Changed("a.txt", nil, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if err := j.Changed("a.txt", []byte("new"), nil); err != nil {
		t.Fatal(err)
	}
	got := j.Take()
	want := []workspace.Change{
		{Path: "a.txt", After: workspace.Sum([]byte("new")), Size: 3},
		{Path: "a.txt", Before: workspace.Sum([]byte("new"))},
	}
	if !slices.Equal(got, want) || len(j.Take()) != 0 {
		t.Fatalf("Take = %+v, want %+v once", got, want)
	}
	if c, _ := b.Get(workspace.Sum([]byte("new"))); string(c) != "new" {
		t.Fatal("the content was not kept")
	}
	// The watcher sees what the tools did: nothing to record.
	if _, ok := j.Observe("a.txt", "", 0, false); ok {
		t.Fatal("the run's own delete was recorded as external")
	}
	// Something else recreates it.
	c, ok := j.Observe("a.txt", "abc", 7, true)
	if !ok || c != (workspace.Change{Path: "a.txt", After: "abc", Size: 7}) {
		t.Fatalf("Observe = %+v, %v", c, ok)
	}
	// A file the run never saw: its before is unknown.
	c, ok = j.Observe("old/x.txt", "def", 1, false)
	if !ok || !c.BeforeUnknown || c.Before != "" {
		t.Fatalf("Observe of an unseen file = %+v, %v", c, ok)
	}
	// One created just now did not exist before: that is known.
	c, ok = j.Observe("new/y.txt", "fed", 1, true)
	if !ok || c.BeforeUnknown || c.Before != "" {
		t.Fatalf("Observe of a new file = %+v, %v", c, ok)
	}
	if _, ok := j.Observe("gone.txt", "", 0, false); ok {
		t.Fatal("an unseen file's removal was recorded")
	}
}

func TestPlanRestore(t *testing.T) {
	t.Parallel()
	rec := func(seq int64, op, path, before, after string) workspace.Recorded {
		return workspace.Recorded{Change: workspace.Change{Path: path, Before: before, After: after}, Op: op, Seq: seq}
	}
	all := []workspace.Recorded{
		rec(1, "n4", "a.txt", "", "a1"),
		rec(2, "n4", "b.txt", "b0", "b1"),
		rec(3, "n6", "a.txt", "a1", "a2"),
		rec(4, "x", "c.txt", "", "c1"),
	}
	all[3].BeforeUnknown = true
	steps, conflicts := workspace.PlanRestore(all, all[:2]) // undo n4
	if len(steps) != 1 || steps[0] != (workspace.Step{Path: "b.txt", From: "b1", To: "b0"}) ||
		len(conflicts) != 1 || conflicts[0].Path != "a.txt" || !strings.Contains(conflicts[0].Reason, "changed again later (by node n6)") {
		t.Fatalf("undo n4: %+v %+v", steps, conflicts)
	}
	steps, conflicts = workspace.PlanRestore(all, all[:3]) // rewind to before n4, without c.txt
	if len(conflicts) != 0 || len(steps) != 2 || steps[0] != (workspace.Step{Path: "a.txt", From: "a2", To: ""}) {
		t.Fatalf("rewind: %+v %+v", steps, conflicts)
	}
	_, conflicts = workspace.PlanRestore(all, all) // revert: c.txt's first content is unknown
	if len(conflicts) != 1 || conflicts[0].Path != "c.txt" || !strings.Contains(conflicts[0].Reason, "not known") {
		t.Fatalf("revert: %+v", conflicts)
	}
}

func TestRestore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ws, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	b := newBlobs(t)
	old, _ := b.Put([]byte("old"))
	write := func(name, content string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o640); err != nil {
			t.Fatal(err)
		}
	}
	write("a.txt", "new")
	write("sub/b.txt", "made")
	steps := []workspace.Step{
		{Path: "a.txt", From: workspace.Sum([]byte("new")), To: old},
		{Path: "sub/b.txt", From: workspace.Sum([]byte("made")), To: ""},
		{Path: "deep/c.txt", From: "", To: old},
	}
	// A person changed a.txt since: nothing is written.
	write("a.txt", "by hand")
	_, err = ws.Restore(b, steps, func(string, string) {})
	var ce *workspace.ConflictError
	if !errors.As(err, &ce) || len(ce.Conflicts) != 1 || ce.Conflicts[0].Path != "a.txt" || !strings.Contains(err.Error(), "changed on disk since") {
		t.Fatalf("Restore over a changed file = %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "deep/c.txt")); !os.IsNotExist(err) {
		t.Fatal("a refused restore wrote a file")
	}
	write("a.txt", "new")
	var mu sync.Mutex
	var expected []string
	done, err := ws.Restore(b, steps, func(p, s string) { mu.Lock(); expected = append(expected, p); mu.Unlock() })
	if err != nil || len(done) != 3 || len(expected) != 3 {
		t.Fatalf("Restore = %+v, %v (expected %v)", done, err, expected)
	}
	for name, want := range map[string]string{"a.txt": "old", "deep/c.txt": "old"} {
		if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(got) != want {
			t.Errorf("%s = %q, %v", name, got, err)
		}
	}
	if fi, _ := os.Stat(filepath.Join(dir, "a.txt")); fi.Mode().Perm() != 0o640 {
		t.Errorf("a.txt mode %v, want 0640 kept", fi.Mode().Perm())
	}
	if _, err := os.Stat(filepath.Join(dir, "sub/b.txt")); !os.IsNotExist(err) {
		t.Error("sub/b.txt not removed")
	}
	// The content to put back must be kept.
	_, err = ws.Restore(b, []workspace.Step{{Path: "a.txt", From: old, To: workspace.Sum([]byte("lost"))}}, func(string, string) {})
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "not kept") {
		t.Fatalf("Restore of a content not kept = %v", err)
	}
}

// watch collects what a watcher reports.
func watch(t *testing.T, dir string, opts workspace.WatchOptions) (*workspace.Watcher, func(want ...string)) {
	t.Helper()
	var mu sync.Mutex
	seen := map[string]bool{}
	w, err := workspace.Watch(dir, opts, func(changed []workspace.Changed) {
		mu.Lock()
		for _, c := range changed {
			seen[c.Path] = true
			if c.Created {
				seen["created:"+c.Path] = true
			}
		}
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	wait := func(want ...string) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			mu.Lock()
			ok := true
			for _, p := range want {
				ok = ok && seen[p]
			}
			mu.Unlock()
			if ok {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("the watcher did not report %v; it saw %v", want, seen)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	return w, wait
}

func TestWatcher(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "sub", ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	w, wait := watch(t, dir, workspace.WatchOptions{Settle: 20 * time.Millisecond})
	for name, content := range map[string]string{"a.txt": "a", "sub/b.txt": "b", ".steward-x.tmp": "t", "sub/.git/HEAD": "h"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wait("a.txt", "sub/b.txt", "created:a.txt")
	// A folder made and filled at once: its files are reported too.
	if err := os.MkdirAll(filepath.Join(dir, "new/deeper"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "new/deeper/c.txt"), []byte("c"), 0o644); err != nil {
		t.Fatal(err)
	}
	wait("new/deeper/c.txt", "created:new/deeper/c.txt")
	if err := os.Remove(filepath.Join(dir, "a.txt")); err != nil {
		t.Fatal(err)
	}
	wait("a.txt")
	if w.Degraded() != "" {
		t.Errorf("degraded: %s", w.Degraded())
	}
}

func TestWatcherDegrades(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, d := range []string{"a", "b", "c"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w, wait := watch(t, dir, workspace.WatchOptions{MaxDirs: 2, Settle: 20 * time.Millisecond})
	if !strings.Contains(w.Degraded(), "more than 2 folders") {
		t.Fatalf("Degraded = %q", w.Degraded())
	}
	// What is watched still reports.
	if err := os.WriteFile(filepath.Join(dir, "top.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	wait("top.txt")
}

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestDiff(t *testing.T) {
	t.Parallel()
	d, note := workspace.Diff("a.txt", []byte("one\ntwo\n"), []byte("one\nthree\n"))
	if note != "" || !strings.Contains(d, "--- a/a.txt") || !strings.Contains(d, "-two") || !strings.Contains(d, "+three") {
		t.Errorf("modified: %q %q", d, note)
	}
	if d, _ := workspace.Diff("n.txt", nil, []byte("x\ny\n")); d != "--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+x\n+y\n" {
		t.Errorf("added: %q", d)
	}
	if d, _ := workspace.Diff("a.txt", []byte("one\ntwo"), []byte("one\nthree")); !strings.HasSuffix(d, "-two\n+three\n") {
		t.Errorf("no newline at the end: %q", d)
	}
	if _, note := workspace.Diff("gone.txt", nil, nil); !strings.Contains(note, "did not exist before") {
		t.Errorf("absent both times: %q", note)
	}
	if d, _ := workspace.Diff("n.txt", []byte("x\n"), nil); !strings.Contains(d, "+++ /dev/null") || !strings.Contains(d, "-x") {
		t.Errorf("deleted: %q", d)
	}
	if _, note := workspace.Diff("b.bin", []byte{0, 1}, []byte{0, 2}); !strings.Contains(note, "binary") {
		t.Errorf("binary: %q", note)
	}
	big := strings.Repeat("line\n", workspace.MaxDiff/4)
	if d, note := workspace.Diff("big.txt", nil, []byte(big)); len(d) != workspace.MaxDiff || !strings.Contains(note, "cut") {
		t.Errorf("big: %d %q", len(d), note)
	}
}

// A file that was there when the watch started is not new when something
// renames a new version over it, as editors save.
func TestWatcherRenameOverIsNotCreation(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "kept.txt"), []byte("v1"), 0o644); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	got := map[string]bool{}
	w, err := workspace.Watch(dir, workspace.WatchOptions{Settle: 20 * time.Millisecond}, func(cs []workspace.Changed) {
		mu.Lock()
		for _, c := range cs {
			got[c.Path] = c.Created
		}
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	tmp := filepath.Join(dir, "kept.txt.swp")
	if err := os.WriteFile(tmp, []byte("v2"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, "kept.txt")); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		created, ok := got["kept.txt"]
		mu.Unlock()
		if ok {
			if created {
				t.Fatal("a file renamed over an existing one was reported as created")
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("kept.txt not reported")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
