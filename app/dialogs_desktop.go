//go:build desktop

package app

import (
	"context"

	wailsruntime "github.com/wailsapp/wails/v2/pkg/runtime"
)

// PickFolder opens the native folder chooser at start (when it exists) and
// returns the folder chosen, or "" when the person cancelled.
func (d *Dialogs) PickFolder(ctx context.Context, title, start string) (string, error) {
	wctx, err := d.take()
	if err != nil {
		return "", err
	}
	defer d.release()
	return wailsruntime.OpenDirectoryDialog(wctx, wailsruntime.OpenDialogOptions{
		Title: title, DefaultDirectory: start, CanCreateDirectories: true,
	})
}

// SaveFile opens the native save dialog suggesting name and returns the
// path chosen, or "" when the person cancelled.
func (d *Dialogs) SaveFile(ctx context.Context, title, name string) (string, error) {
	wctx, err := d.take()
	if err != nil {
		return "", err
	}
	defer d.release()
	return wailsruntime.SaveFileDialog(wctx, wailsruntime.SaveDialogOptions{
		Title: title, DefaultFilename: name, CanCreateDirectories: true,
	})
}
