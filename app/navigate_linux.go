//go:build desktop

package app

/*
#cgo linux pkg-config: gtk+-3.0
#cgo webkit2_41 pkg-config: webkit2gtk-4.1
#cgo !webkit2_41 pkg-config: webkit2gtk-4.0

#include <stdint.h>
#include <stdlib.h>

void stewardLoadURI(char *uri, uintptr_t handle);
*/
import "C"

import (
	"errors"
	"runtime/cgo"
)

// nativeNavigation says that loadURI works here, so the bootstrap page need not redirect.
//
// Why not let the bootstrap page's script navigate: a navigation started by a script on
// wails://wails/ is cross-site to http://127.0.0.1, and so is the redirect that follows
// ?token=; WebKit then withholds a SameSite=Strict session cookie from the redirected request
// to /, and the UI opens unauthorised (seen under Xvfb with WebKitGTK 2.50: "no session").
// A load started by the application, like a URL typed into a browser's address bar, has no
// initiating site: Strict cookies flow, and Sec-Fetch-Site is "none", exactly as in web mode.
// Wails v2 offers no call for it (it loads only its own start URL), hence this file.
const nativeNavigation = true

// loadURI asks the GTK main loop to load uri in the window's webview and waits until it has
// been done, or until exited closes (the main loop ended first). It must be called after
// Wails' OnStartup: the window exists by then, and since the request runs only once gtk_main
// is iterating, after Wails has packed the webview and started loading its own start page,
// this load supersedes that one.
func loadURI(uri string, exited <-chan struct{}) error {
	done := make(chan bool, 1)
	h := cgo.NewHandle(done)
	C.stewardLoadURI(C.CString(uri), C.uintptr_t(h)) // C frees the string
	select {
	case ok := <-done:
		h.Delete()
		if !ok {
			return errors.New("load url: no webview found in the window")
		}
		return nil
	case <-exited:
		// The request may still run as the loop winds down; the handle stays valid for it.
		return errors.New("load url: window closed first")
	}
}

//export stewardLoaded
func stewardLoaded(handle C.uintptr_t, ok C.int) {
	cgo.Handle(handle).Value().(chan bool) <- ok != 0 // buffered: never blocks the main loop
}
