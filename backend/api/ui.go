package api

import (
	"io/fs"
	"net/http"
	"path"
	"strings"
)

// noFraming is the Content-Security-Policy of every answer that sets none
// of its own: no page may frame it (ServeHTTP says why).
const noFraming = "frame-ancestors 'none'"

// uiPolicy is the UI's Content-Security-Policy: its own scripts, styles,
// pictures and connections only, and never in a frame.
const uiPolicy = "default-src 'self'; connect-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; media-src 'self' blob:; " + noFraming

// ui serves the embedded single-page app. Opening /?token=TOKEN trades the
// token for the session cookie and redirects to / so the token does not stay
// in the address bar or the history.
func (s *Server) ui() http.Handler {
	files := http.FileServerFS(s.cfg.UI)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/api/") {
			s.fail(w, r, errorf(http.StatusNotFound, CodeNotFound, "no route "+r.Method+" "+r.URL.Path))
			return
		}
		if t := r.URL.Query().Get("token"); t != "" {
			if !equal(t, s.cfg.Token) {
				http.Error(w, "Wrong token: open the URL that `steward serve` printed.", http.StatusUnauthorized)
				return
			}
			s.setSession(w)
			// Other parameters stay (the desktop window adds surface=desktop,
			// so its answers say where they came from).
			q := r.URL.Query()
			q.Del("token")
			to := "/"
			if len(q) > 0 {
				to += "?" + q.Encode()
			}
			http.Redirect(w, r, to, http.StatusSeeOther)
			return
		}
		if s.cfg.UI == nil {
			http.Error(w, "The UI is not built into this binary: run `make build`.", http.StatusServiceUnavailable)
			return
		}
		name := strings.TrimPrefix(path.Clean(r.URL.Path), "/")
		if name == "" {
			name = "index.html"
		}
		if _, err := fs.Stat(s.cfg.UI, name); err != nil {
			// Client-side routes fall back to the app shell.
			name = "index.html"
			if _, err := fs.Stat(s.cfg.UI, name); err != nil {
				http.Error(w, "The UI is not built into this binary: run `make build`.", http.StatusServiceUnavailable)
				return
			}
			r2 := r.Clone(r.Context())
			r2.URL.Path = "/"
			r = r2
		}
		if name == "index.html" {
			w.Header().Set("Cache-Control", "no-cache")
		} else if strings.HasPrefix(name, "assets/") {
			w.Header().Set("Cache-Control", "public, max-age=31536000, immutable") // hashed names
		}
		w.Header().Set("Content-Security-Policy", uiPolicy)
		files.ServeHTTP(w, r)
	})
}
