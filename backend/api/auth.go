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

// cookiePrefix starts the name of the session cookie the UI gets when
// opened with its token; the server's port ends it. Browsers keep cookies
// by host, not by port, so two servers on one machine (a desktop window and
// `steward serve`, two data directories) would otherwise overwrite each
// other's and sign each other out. A cookie named as before this rule
// (steward_session) is never read: it opens nothing and breaks nothing.
const cookiePrefix = "steward_session_"

// cookieName is the session cookie's name as the API's documents spell it.
const cookieName = cookiePrefix + "{port}"

// sessionCookie is the name of this server's session cookie.
func (s *Server) sessionCookie() string { return cookiePrefix + s.port() }

// sessionValue derives the cookie from the token, so sessions survive a
// restart with the same token and die when the token changes, and the
// cookie never holds the token itself.
func sessionValue(token string) string {
	m := hmac.New(sha256.New, []byte(token))
	m.Write([]byte("steward-session-v1"))
	return hex.EncodeToString(m.Sum(nil))
}

func equal(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// credential is what authenticated a request.
type credential int

const (
	noCredential credential = iota
	byBearer                // the token in Authorization: a program, which no web page can make send it
	byCookie                // the session cookie, which the browser sends by itself
)

// authenticate says what in r proves the token: the bearer token, else the
// session cookie; an Authorization header decides alone, right or wrong.
func (s *Server) authenticate(r *http.Request) credential {
	if h := r.Header.Get("Authorization"); h != "" {
		if t, ok := strings.CutPrefix(h, "Bearer "); ok && equal(strings.TrimSpace(t), s.cfg.Token) {
			return byBearer
		}
		return noCredential
	}
	if c, err := r.Cookie(s.sessionCookie()); err == nil && equal(c.Value, s.session) {
		return byCookie
	}
	return noCredential
}

// changesState reports whether r may change something: any method but GET,
// HEAD and OPTIONS, and the WebSocket's upgrade, whose messages carry
// commands and answers.
func changesState(r *http.Request) bool {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
	}
	return true
}

// sameOrigin reports whether a browser says r comes from a page of this
// server: Sec-Fetch-Site, when sent, must be same-origin (a page on another
// 127.0.0.1 port is same-site, and a same-site request carries a
// SameSite=Strict cookie); else the Origin must be one of this server's
// own. A request with neither did not come from a page that a browser
// vouches for, and the cookie alone does not let it change anything.
func (s *Server) sameOrigin(r *http.Request) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" {
		if site != "same-origin" {
			return false
		}
		return r.Header.Get("Origin") == "" || s.originAllowed(r.Header.Get("Origin"))
	}
	o := r.Header.Get("Origin")
	return o != "" && s.originAllowed(o)
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
		Name: s.sessionCookie(), Value: s.session, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, MaxAge: 30 * 24 * 3600,
	})
}
