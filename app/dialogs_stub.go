//go:build !desktop

package app

import "context"

// PickFolder returns ErrNotBuilt: this binary has no window.
func (d *Dialogs) PickFolder(ctx context.Context, title, start string) (string, error) {
	return "", ErrNotBuilt
}

// SaveFile returns ErrNotBuilt: this binary has no window.
func (d *Dialogs) SaveFile(ctx context.Context, title, name string) (string, error) {
	return "", ErrNotBuilt
}
