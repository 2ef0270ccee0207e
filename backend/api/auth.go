package api

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// cookieName is the session cookie the UI gets when opened with its token.
const cookieName = "steward_session"

// sessionValue derives the cookie from the token, so sessions survive a
// restart with the same token and die when the token changes, and the
// cookie never holds the token itself.
func sessionValue(token string) string {
	m := hmac.New(sha256.New, []byte(token))
	m.Write([]byte("steward-session-v1"))
	return hex.EncodeToString(m.Sum(nil))
}

func equal(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// authorized reports whether r carries the token or the session cookie.
func (s *Server) authorized(r *http.Request) bool {
	if h := r.Header.Get("Authorization"); h != "" {
		t, ok := strings.CutPrefix(h, "Bearer ")
		return ok && equal(strings.TrimSpace(t), s.cfg.Token)
	}
	if c, err := r.Cookie(cookieName); err == nil {
		return equal(c.Value, s.session)
	}
	return false
}

// hostAllowed refuses requests whose Host is not a loopback name of this
// server: a page on another site that rebinds its DNS name to 127.0.0.1
// still sends its own name as Host.
func (s *Server) hostAllowed(host string) bool {
	h, port, err := net.SplitHostPort(host)
	if err != nil {
		h, port = host, ""
	}
	if port != s.port() {
		return false
	}
	switch strings.ToLower(strings.Trim(h, "[]")) {
	case "127.0.0.1", "localhost", "::1":
		return true
	}
	return s.cfg.ExtraHost != "" && strings.EqualFold(h, s.cfg.ExtraHost)
}

// originAllowed accepts no Origin (curl, the CLI) or one of this server's
// own origins; a page from anywhere else may not drive the API.
func (s *Server) originAllowed(origin string) bool {
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return s.hostAllowed(u.Host)
}

func (s *Server) setSession(w http.ResponseWriter) {
	http.SetCookie(w, &http.Cookie{
		Name: cookieName, Value: s.session, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, MaxAge: 30 * 24 * 3600,
	})
}
