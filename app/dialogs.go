package app

import (
	"context"
	"errors"
	"sync"
)

// ErrNoWindow is returned by a dialog asked for while no window is open.
var ErrNoWindow = errors.New("no desktop window is open")

// Dialogs opens the window's native dialogs for the rest of the program
// (the server's API asks for them on behalf of the page in the window).
// Pass it in Options.Dialogs; it works while the window is up, and answers
// ErrNoWindow before and after. Its methods are safe for concurrent use.
type Dialogs struct {
	mu   sync.Mutex
	wctx context.Context // Wails' context while the window is up
	busy bool            // one dialog at a time: GTK's are modal
}

func (d *Dialogs) attach(wctx context.Context) {
	d.mu.Lock()
	d.wctx = wctx
	d.mu.Unlock()
}

// take returns the window's context for one dialog, or an error when there
// is no window or a dialog is open already.
func (d *Dialogs) take() (context.Context, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case d.wctx == nil:
		return nil, ErrNoWindow
	case d.busy:
		return nil, errors.New("a dialog is open already")
	}
	d.busy = true
	return d.wctx, nil
}

func (d *Dialogs) release() {
	d.mu.Lock()
	d.busy = false
	d.mu.Unlock()
}
