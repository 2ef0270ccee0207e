package replay_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"steward/backend/agent"
	"steward/backend/event"
	"steward/backend/recording"
	"steward/backend/replay"
	"steward/backend/run"
)

// change is one file.changed of a crafted recording: the content the file
// had before the run ("" when the run created it).
type change struct{ path, before string }

// crafted is a recording whose run changed the files of changes, in order.
func crafted(t *testing.T, changes ...change) *recording.Bundle {
	t.Helper()
	spec, err := json.Marshal(agent.Agent{ID: "ag_x", Name: "x", Provider: agent.ProviderScript, Mode: agent.ModeAuto, MaxSteps: 10})
	if err != nil {
		t.Fatal(err)
	}
	b := &recording.Bundle{Blobs: map[string][]byte{}}
	add := func(typ event.Type, data any) {
		ev := event.New("run_x", typ, "", data)
		ev.Seq = int64(len(b.Events) + 1)
		b.Events = append(b.Events, ev)
	}
	add(event.RunCreated, event.RunCreatedData{Agent: event.AgentRef{ID: "ag_x", Name: "x"}, Instructions: "go", Workspace: "/elsewhere", Spec: spec})
	for _, c := range changes {
		d := event.FileChangedData{Path: c.path, Source: event.FileByTool, Size: 1}
		if c.before != "" {
			sum := sha256.Sum256([]byte(c.before))
			d.Before = hex.EncodeToString(sum[:])
			b.Blobs[d.Before] = []byte(c.before)
		}
		add(event.FileChanged, d)
	}
	add(event.RunStatus, event.RunStatusData{Status: string(run.Completed)})
	return b
}

// A recording that would write in .git, make a folder a repository, or
// write outside the folder is refused as a whole when it is read for a
// replay, before any file is written, whatever comes first in it (the
// issue's recording wrote a.txt and .git/config, then met ../).
func TestReplayRefusesWhatItMustNotWrite(t *testing.T) {
	t.Parallel()
	first := change{"a.txt", "A\n"}
	tests := []struct {
		name string
		bad  change
		says string
	}{
		{"git config", change{".git/config", "[core]\n\tfsmonitor = touch /tmp/pwned\n"}, "is inside a .git folder"},
		{"git config, another case", change{".GIT/config", "[core]\n"}, "is inside a .git folder"},
		{"a hook of a nested repository", change{"sub/.git/hooks/pre-commit", "#!/bin/sh\n"}, "is inside a .git folder"},
		{"a .git file", change{".git", "gitdir: /elsewhere\n"}, "is inside a .git folder"},
		{"a .git folder, Windows spelling", change{".git./config", "[core]\n"}, "is inside a .git folder"},
		{"a repository's HEAD", change{"HEAD", "ref: refs/heads/main\n"}, "as a repository's HEAD"},
		{"a detached HEAD", change{"deep/HEAD", strings.Repeat("ab", 20) + "\n"}, "as a repository's HEAD"},
		{"parent", change{"../escape.txt", "x"}, "is not a plain path inside the folder"},
		{"parent inside", change{"a/../../escape.txt", "x"}, "is not a plain path inside the folder"},
		{"absolute", change{"/tmp/escape.txt", "x"}, "is not a relative path"},
		{"backslashes", change{`..\escape.txt`, "x"}, "is not a relative path"},
		{"drive", change{"C:/escape.txt", "x"}, "is not a relative path"},
		{"removal in .git", change{".git/index", ""}, "is inside a .git folder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := replay.Load(crafted(t, first, tt.bad))
			if !errors.Is(err, replay.ErrRefused) || !strings.Contains(err.Error(), tt.says) {
				t.Errorf("Load = %v; want it refused, saying %q", err, tt.says)
			}
		})
	}
	// A file named HEAD that git would not read as one is a file.
	if _, err := replay.Load(crafted(t, change{"notes/HEAD", "the head of the list\n"})); err != nil {
		t.Errorf("a plain file named HEAD: %v", err)
	}
}

// Preparing a folder that holds files already is all or nothing: a link, a
// file where the recording has a folder, or a folder where it has a file
// is refused before the first write; a folder that holds anything at all is
// refused unless allowed.
func TestPrepareWorkspaceIsAllOrNothing(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	tests := []struct {
		name     string
		setup    func(t *testing.T, dir string)
		changes  []change
		nonEmpty bool
		says     string
	}{
		{"a folder that is not empty", func(t *testing.T, dir string) { write(t, dir, "keep.txt", "mine") },
			[]change{{"a.txt", "A"}}, false, "is not empty (it holds "},
		{"a link on the way out", func(t *testing.T, dir string) {
			if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
				t.Fatal(err)
			}
		}, []change{{"a.txt", "A"}, {"out/escape.txt", "x"}}, true, "out is a link in the folder"},
		{"a link in place of the file", func(t *testing.T, dir string) {
			if err := os.Symlink(filepath.Join(outside, "target.txt"), filepath.Join(dir, "b.txt")); err != nil {
				t.Fatal(err)
			}
		}, []change{{"a.txt", "A"}, {"b.txt", "B"}}, true, "b.txt is a link in the folder"},
		{"a file where the recording has a folder", func(t *testing.T, dir string) { write(t, dir, "f", "file") },
			[]change{{"a.txt", "A"}, {"f/x.txt", "x"}}, true, "f is a file in the folder"},
		{"a folder where the recording has a file", func(t *testing.T, dir string) {
			if err := os.Mkdir(filepath.Join(dir, "d"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, []change{{"a.txt", "A"}, {"d", "x"}}, true, "d is not a plain file in the folder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			write(t, dir, ".git/config", "[core]\n")
			tt.setup(t, dir)
			rec, err := replay.Load(crafted(t, tt.changes...))
			if err != nil {
				t.Fatal(err)
			}
			before, outBefore := tree(t, dir), tree(t, outside)
			_, err = replay.PrepareWorkspace(rec, dir, replay.PrepareOptions{NonEmpty: tt.nonEmpty})
			if !errors.Is(err, replay.ErrRefused) || !strings.Contains(err.Error(), tt.says) {
				t.Errorf("PrepareWorkspace = %v; want it refused, saying %q", err, tt.says)
			}
			if d := before.diff(tree(t, dir)); d != "" {
				t.Errorf("the folder changed: %s", d)
			}
			if d := outBefore.diff(tree(t, outside)); d != "" {
				t.Errorf("outside the folder changed: %s", d)
			}
		})
	}
}

// The replay service refuses such a folder with ErrInvalid, and starts
// nothing.
func TestServiceRefusesAFolderItCannotPrepare(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	svc := e.service(t, run.Config{Models: fixedModels{}})
	rs := e.replays(svc, nil, t.TempDir())
	dir := t.TempDir()
	write(t, dir, "f", "file")
	rec, err := replay.Load(crafted(t, change{"a.txt", "A"}, change{"f/x.txt", "x"}))
	if err != nil {
		t.Fatal(err)
	}
	before := tree(t, dir)
	_, err = rs.Start(context.Background(), rec, replay.Params{Agent: "tester", Workspace: dir, NonEmpty: true})
	if !errors.Is(err, run.ErrInvalid) || !strings.Contains(err.Error(), "f is a file in the folder") {
		t.Errorf("Start = %v; want ErrInvalid naming f", err)
	}
	if d := before.diff(tree(t, dir)); d != "" {
		t.Errorf("the folder changed: %s", d)
	}
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
