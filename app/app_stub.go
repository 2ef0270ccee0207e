//go:build !desktop

package app

import "context"

// Available reports whether Run can open a window. This binary was built without the desktop
// tags, so it never can.
func Available() bool { return false }

// Run returns ErrNotBuilt: this binary was built without the desktop tags.
func Run(ctx context.Context, opts Options) error { return ErrNotBuilt }
