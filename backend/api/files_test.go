package api_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"steward/backend/api"
)

// The files of a run over the API: the journal with diffs, an undo, a
// conflict that names the file and writes nothing, and an undo of the undo.
func TestFilesReviewAndUndo(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	path := filepath.Join(t.TempDir(), "writer.json")
	if err := os.WriteFile(path, []byte(`{"turns": [
		{"tool_calls": [{"name": "write_file", "arguments": {"path": "notes/a.txt", "content": "one\ntwo\n"}}]},
		{"text": "Done."}
	]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	e.call("POST", "/api/v1/agents", api.AgentInput{Name: "writer", Provider: "script", Script: path, Tools: []string{"write_file"}, Mode: "auto"}, http.StatusCreated, nil)
	ws := t.TempDir()
	var r api.Run
	e.call("POST", "/api/v1/runs", api.StartRun{Agent: "writer", Instructions: "write", Workspace: ws}, http.StatusCreated, &r)
	e.waitStatus(r.ID, "completed")

	var view api.FilesView
	e.call("GET", "/api/v1/runs/"+r.ID+"/files", nil, http.StatusOK, &view)
	if len(view.Files) != 1 {
		t.Fatalf("files %+v", view.Files)
	}
	f := view.Files[0]
	if f.Path != "notes/a.txt" || f.Status != "added" || f.External || !strings.Contains(f.Diff, "+two") || len(f.Changes) != 1 ||
		f.Changes[0].Source != "tool" || f.Changes[0].NodeID == "" || f.Changes[0].Op != f.Changes[0].NodeID {
		t.Fatalf("file %+v", f)
	}
	op := f.Changes[0].Op

	// Someone edits the file: the undo is refused, with the file named.
	file := filepath.Join(ws, "notes", "a.txt")
	if err := os.WriteFile(file, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	resp := e.do("POST", "/api/v1/runs/"+r.ID+"/files/undo", api.RestoreInput{Op: op})
	wantError(t, resp, http.StatusConflict, "conflict")
	var body struct {
		Error struct {
			Conflicts []struct{ Path, Reason string }
		}
	}
	if err := json.Unmarshal(resp.body, &body); err != nil || len(body.Error.Conflicts) != 1 || body.Error.Conflicts[0].Path != "notes/a.txt" {
		t.Fatalf("conflict body %s", resp.body)
	}
	if b, _ := os.ReadFile(file); string(b) != "mine\n" {
		t.Fatalf("the refused undo wrote %q", b)
	}
	// Back as the run left it: the undo goes through, and can be undone.
	if err := os.WriteFile(file, []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var res struct {
		Op      string
		Changes []json.RawMessage
	}
	e.call("POST", "/api/v1/runs/"+r.ID+"/files/undo", api.RestoreInput{Op: op}, http.StatusOK, &res)
	if _, err := os.Stat(file); !os.IsNotExist(err) || res.Op == "" || len(res.Changes) != 1 {
		t.Fatalf("undo: %+v (stat %v)", res, err)
	}
	e.call("POST", "/api/v1/runs/"+r.ID+"/files/undo", api.RestoreInput{Op: res.Op}, http.StatusOK, nil)
	if b, err := os.ReadFile(file); err != nil || string(b) != "one\ntwo\n" {
		t.Fatalf("undo of the undo: %q, %v", b, err)
	}
	e.call("GET", "/api/v1/runs/"+r.ID+"/files", nil, http.StatusOK, &view)
	if n := len(view.Files[0].Changes); n != 3 || view.Files[0].Changes[1].Source != "undo" || view.Files[0].Changes[1].Undoes != op {
		t.Fatalf("after undo and redo: %+v", view.Files[0].Changes)
	}
	// Bad input says what is wrong.
	wantError(t, e.do("POST", "/api/v1/runs/"+r.ID+"/files/undo", api.RestoreInput{}), http.StatusBadRequest, "invalid")
	wantError(t, e.do("POST", "/api/v1/runs/"+r.ID+"/files/undo", api.RestoreInput{Op: "n999"}), http.StatusNotFound, "not_found")
	wantError(t, e.do("POST", "/api/v1/runs/"+r.ID+"/files/rewind", api.RestoreInput{NodeID: "n999"}), http.StatusNotFound, "not_found")
	wantError(t, e.do("GET", "/api/v1/runs/run_nope/files", nil), http.StatusNotFound, "not_found")
}

// A fork with files "restore" over the API: a file changed since is a
// files_conflict answer naming it, with nothing changed; once it is back,
// the fork puts the files back as they were at the node, the new run's
// run.created says so, and the source's Files view shows the restore as an
// undo that can itself be undone.
func TestForkRestoresFilesOverTheAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	path := filepath.Join(t.TempDir(), "writer.json")
	if err := os.WriteFile(path, []byte(`{"turns": [
		{"tool_calls": [{"name": "write_file", "arguments": {"path": "a.txt", "content": "one"}}]},
		{"tool_calls": [{"name": "write_file", "arguments": {"path": "a.txt", "content": "two"}}]},
		{"text": "Done."}
	]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	e.call("POST", "/api/v1/agents", api.AgentInput{Name: "writer", Provider: "script", Script: path, Tools: []string{"write_file"}, Mode: "auto"}, http.StatusCreated, nil)
	ws := t.TempDir()
	var r api.Run
	e.call("POST", "/api/v1/runs", api.StartRun{Agent: "writer", Instructions: "write", Workspace: ws}, http.StatusCreated, &r)
	e.waitStatus(r.ID, "completed")
	var view api.FilesView
	e.call("GET", "/api/v1/runs/"+r.ID+"/files", nil, http.StatusOK, &view)
	if len(view.Files) != 1 || len(view.Files[0].Changes) != 2 {
		t.Fatalf("files %+v", view.Files)
	}
	node := view.Files[0].Changes[0].NodeID
	file := filepath.Join(ws, "a.txt")

	if err := os.WriteFile(file, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	var res api.CommandResult
	e.call("POST", "/api/v1/runs/"+r.ID+"/commands", api.Command{CommandID: "f1", Type: "fork", NodeID: node, Files: "restore"}, http.StatusOK, &res)
	if res.Status != "rejected" || res.Code != "files_conflict" || !strings.Contains(res.Message, "a.txt") || res.Fork != "" {
		t.Fatalf("fork over a changed file = %+v", res)
	}
	if b, _ := os.ReadFile(file); string(b) != "mine" {
		t.Fatalf("the refused fork wrote %q", b)
	}
	if err := os.WriteFile(file, []byte("two"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.call("POST", "/api/v1/runs/"+r.ID+"/commands", api.Command{CommandID: "f2", Type: "fork", NodeID: node, Files: "restore"}, http.StatusOK, &res)
	if res.Status != "accepted" || res.Fork == "" {
		t.Fatalf("fork = %+v", res)
	}
	if b, _ := os.ReadFile(file); string(b) != "one" {
		t.Fatalf("after the fork a.txt holds %q; want one", b)
	}
	var page struct {
		Events []struct {
			Type string
			Data json.RawMessage
		}
	}
	e.call("GET", "/api/v1/runs/"+res.Fork+"/events", nil, http.StatusOK, &page)
	var created struct {
		ForkFiles struct {
			Choice   string
			Op       string
			Restored int
		} `json:"fork_files"`
	}
	if len(page.Events) == 0 || json.Unmarshal(page.Events[0].Data, &created) != nil || created.ForkFiles.Choice != "restore" ||
		created.ForkFiles.Op == "" || created.ForkFiles.Restored != 1 {
		t.Fatalf("fork's run.created: %+v", page.Events)
	}
	e.call("GET", "/api/v1/runs/"+r.ID+"/files", nil, http.StatusOK, &view)
	last := view.Files[0].Changes[len(view.Files[0].Changes)-1]
	if last.Op != created.ForkFiles.Op || last.Source != "undo" || last.Undoes != "after:"+node {
		t.Fatalf("source's last change %+v", last)
	}
	e.call("POST", "/api/v1/runs/"+r.ID+"/files/undo", api.RestoreInput{Op: created.ForkFiles.Op}, http.StatusOK, nil)
	if b, _ := os.ReadFile(file); string(b) != "two" {
		t.Fatalf("after the undo of the restore a.txt holds %q; want two", b)
	}
	// A choice that is none of the three is a bad request naming them.
	resp := e.do("POST", "/api/v1/runs/"+r.ID+"/commands", api.Command{CommandID: "f3", Type: "fork", NodeID: node, Files: "move"})
	wantError(t, resp, http.StatusBadRequest, "invalid")
	if !strings.Contains(string(resp.body), "keep") {
		t.Errorf("bad files answer %s", resp.body)
	}
}
