// Package frontend embeds the built web UI (frontend/dist) and the built
// recording player (frontend/dist-player) into the binary. A clean clone
// holds only dist/.gitkeep and dist-player/.gitkeep; `make` builds both
// before the Go binary, and each accessor says so plainly when it finds
// nothing built.
package frontend

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
)

//go:embed all:dist
var dist embed.FS

//go:embed all:dist-player
var player embed.FS

// ErrPlayerNotBuilt is returned by Player when the binary was built before
// the player (dist-player/index.html missing).
var ErrPlayerNotBuilt = errors.New("the HTML recording player is not built: run `make ui` (or `cd frontend && npm run build`), then build Steward again")

// Dist returns the built UI, rooted at dist/.
func Dist() fs.FS {
	sub, err := fs.Sub(dist, "dist")
	if err != nil {
		panic(err) // dist is embedded above: Sub cannot fail
	}
	return sub
}

// Player returns the built recording player: one HTML page with every
// script and style inlined, into which an HTML export writes a run's data.
// It returns ErrPlayerNotBuilt when the page is not in the binary.
func Player() ([]byte, error) {
	b, err := player.ReadFile("dist-player/index.html")
	if errors.Is(err, fs.ErrNotExist) || (err == nil && len(b) == 0) {
		return nil, ErrPlayerNotBuilt
	}
	if err != nil {
		return nil, fmt.Errorf("read the recording player: %w", err)
	}
	return b, nil
}
