package app

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"net/http"
	"strconv"
)

// bootstrapHTML is the only page the window loads from Wails' asset server: "Opening
// Steward…" on the window's background colour, shown until the UI's first paint. Where the
// shell cannot load the URL natively (see nativeNavigation), the page navigates by script:
// html/template escapes the URL as a JS string, and location.replace, not assign, leaves no
// history entry that Back would return to and bounce forward from. There is deliberately no
// <meta http-equiv=refresh> fallback, which a slow server could see fire a second time.
//
//go:embed bootstrap.html
var bootstrapHTML string

var bootstrapTmpl = template.Must(template.New("bootstrap").Parse(bootstrapHTML))

// rgb is an opaque colour shared by the window background and the bootstrap page, so that
// nothing flashes between the window mapping and the UI's first paint.
type rgb struct{ R, G, B uint8 }

func (c rgb) css() template.CSS {
	return template.CSS("rgb(" + strconv.Itoa(int(c.R)) + "," + strconv.Itoa(int(c.G)) + "," + strconv.Itoa(int(c.B)) + ")")
}

// background is light because WebKit paints a page white until its stylesheet says otherwise.
var background = rgb{R: 246, G: 247, B: 249}

// bootstrapHandler returns the handler for Wails' asset server: the bootstrap page at "/" and
// "/index.html", 404 for anything else. With redirect, the page navigates to target itself.
func bootstrapHandler(title, target string, redirect bool) (http.Handler, error) {
	var buf bytes.Buffer
	err := bootstrapTmpl.Execute(&buf, struct {
		Title, URL string
		Redirect   bool
		Background template.CSS
	}{title, target, redirect, background.css()})
	if err != nil {
		return nil, fmt.Errorf("render bootstrap page: %w", err)
	}
	page := buf.Bytes()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" && r.URL.Path != "/index.html" {
			http.NotFound(w, r)
			return
		}
		// The page embeds a session token: keep it out of any cache.
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(page) // a failed write to the webview has no one to report to
	}), nil
}
