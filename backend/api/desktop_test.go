package api_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"steward/backend/api"
)

type fakeDesktop struct {
	path string
	err  error
	got  string
}

func (f *fakeDesktop) PickFolder(_ context.Context, title, start string) (string, error) {
	f.got = title + "|" + start
	return f.path, f.err
}

func (f *fakeDesktop) SaveFile(_ context.Context, title, name string) (string, error) {
	f.got = title + "|" + name
	return f.path, f.err
}

func TestDesktopFolderDialog(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	wantError(t, e.do("POST", "/api/v1/desktop/folder", nil), http.StatusNotImplemented, "unsupported")
	var info api.Info
	e.call("GET", "/api/v1/info", nil, http.StatusOK, &info)
	if info.Desktop {
		t.Error("info says desktop in a plain server")
	}

	d := &fakeDesktop{path: "/home/me/project"}
	e = newEnvWith(t, func(c *api.Config) { c.Desktop = d })
	e.call("GET", "/api/v1/info", nil, http.StatusOK, &info)
	if !info.Desktop {
		t.Error("info does not say desktop")
	}
	start := t.TempDir()
	var got api.FolderChoice
	e.call("POST", "/api/v1/desktop/folder", api.FolderInput{Start: start}, http.StatusOK, &got)
	if got.Path != "/home/me/project" || got.Cancelled || d.got != "Choose the workspace folder|"+start {
		t.Errorf("choice %+v, dialog asked %q", got, d.got)
	}
	// A start that is not a folder is dropped; a cancel says so.
	d.path = ""
	e.call("POST", "/api/v1/desktop/folder", api.FolderInput{Title: "Pick", Start: "/no/such/dir"}, http.StatusOK, &got)
	if !got.Cancelled || d.got != "Pick|" {
		t.Errorf("cancelled choice %+v, dialog asked %q", got, d.got)
	}
	d.err = errors.New("a dialog is open already")
	wantError(t, e.do("POST", "/api/v1/desktop/folder", nil), http.StatusConflict, "conflict")
}
