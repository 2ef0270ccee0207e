// Package frontend embeds the built web UI (frontend/dist) into the binary.
// A clean clone holds only dist/.gitkeep; `make` builds the UI before the Go
// binary, and the server says so plainly when it finds no index.html.
package frontend

import (
	"embed"
	"io/fs"
)

//go:embed all:dist
var dist embed.FS

// Dist returns the built UI, rooted at dist/.
func Dist() fs.FS {
	sub, err := fs.Sub(dist, "dist")
	if err != nil {
		panic(err) // dist is embedded above: Sub cannot fail
	}
	return sub
}
