//go:build desktop && !linux

package app

import "errors"

// nativeNavigation is false here: the bootstrap page navigates by script, which is
// cross-site and so withholds SameSite=Strict cookies on the way (see navigate_linux.go).
const nativeNavigation = false

func loadURI(string, <-chan struct{}) error {
	return errors.New("load url: not implemented on this platform")
}
