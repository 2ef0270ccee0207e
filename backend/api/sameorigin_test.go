package api_test

import (
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"strconv"
	"testing"

	"github.com/gorilla/websocket"

	"steward/backend/api"
)

// TestCookieChangesComeFromThisOrigin: a request that changes something
// on the strength of the session cookie alone must come from a page of
// this server, as the browser says it (Origin, Sec-Fetch-Site); the
// browser sends the cookie with requests other pages of this machine make
// too. Programs with the bearer token need neither; reading needs neither.
func TestCookieChangesComeFromThisOrigin(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.session()
	cookie := withCookie(&http.Cookie{Name: s.Name, Value: s.Value})
	own := e.base
	other := "http://127.0.0.1:" + strconv.Itoa(e.port%65535+1)
	tests := []struct {
		name   string
		method string
		opts   []reqOpt
		ok     bool
	}{
		{"cookie, own origin", "POST", []reqOpt{cookie, header("Origin", own)}, true},
		{"cookie, own localhost origin", "POST", []reqOpt{cookie, header("Origin", "http://localhost:"+strconv.Itoa(e.port))}, true},
		{"cookie, same-origin fetch without Origin", "POST", []reqOpt{cookie, header("Sec-Fetch-Site", "same-origin")}, true},
		{"cookie, own origin and same-origin fetch", "POST", []reqOpt{cookie, header("Origin", own), header("Sec-Fetch-Site", "same-origin")}, true},
		{"cookie, nothing says where from", "POST", []reqOpt{cookie}, false},
		{"cookie, PUT without origin", "PUT", []reqOpt{cookie}, false},
		{"cookie, DELETE without origin", "DELETE", []reqOpt{cookie}, false},
		{"cookie, foreign origin", "POST", []reqOpt{cookie, header("Origin", "http://evil.example")}, false},
		{"cookie, another port of this machine", "POST", []reqOpt{cookie, header("Origin", other)}, false},
		{"cookie, null origin", "POST", []reqOpt{cookie, header("Origin", "null")}, false},
		{"cookie, cross-site fetch", "POST", []reqOpt{cookie, header("Sec-Fetch-Site", "cross-site")}, false},
		{"cookie, same-site fetch (another port)", "POST", []reqOpt{cookie, header("Sec-Fetch-Site", "same-site")}, false},
		{"cookie, typed in the address bar", "POST", []reqOpt{cookie, header("Sec-Fetch-Site", "none")}, false},
		{"cookie, own origin but a cross-site fetch", "POST", []reqOpt{cookie, header("Origin", own), header("Sec-Fetch-Site", "cross-site")}, false},
		{"bearer without origin", "POST", nil, true},
		{"bearer, same-origin fetch", "POST", []reqOpt{header("Sec-Fetch-Site", "same-origin")}, true},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			name := fmt.Sprintf("agent-%d", i)
			path, body, want := "/api/v1/agents", any(map[string]any{"name": name}), http.StatusCreated
			switch tt.method {
			case "PUT":
				path, body, want = "/api/v1/agents/default", map[string]any{"name": "default", "system_prompt": "changed"}, http.StatusOK
			case "DELETE":
				path, body, want = "/api/v1/agents/default", nil, http.StatusNoContent
			}
			r := e.with(t).do(tt.method, path, body, tt.opts...)
			if !tt.ok {
				wantError(t, r, http.StatusForbidden, "forbidden")
				if tt.method == "POST" {
					if r := e.with(t).do("GET", "/api/v1/agents/"+name, nil); r.status != http.StatusNotFound {
						t.Errorf("the refused request created %s: GET = %d", name, r.status)
					}
				}
				return
			}
			if r.status != want {
				t.Fatalf("status %d, want %d; body %s", r.status, want, r.body)
			}
		})
	}
	// Reading with the cookie needs no origin: a link, the address bar.
	if r := e.do("GET", "/api/v1/runs", nil, cookie); r.status != http.StatusOK {
		t.Errorf("GET with the cookie and no origin = %d %s, want 200", r.status, r.body)
	}
	// The default agent was not touched by the refused PUT and DELETE.
	var ag struct {
		SystemPrompt string `json:"system_prompt"`
	}
	e.call("GET", "/api/v1/agents/default", nil, http.StatusOK, &ag)
	if ag.SystemPrompt == "changed" {
		t.Error("a refused PUT changed the default agent")
	}
}

// TestWebSocketWithTheCookieComesFromThisOrigin: the WebSocket carries
// commands and answers, so its upgrade is held to the same rule.
func TestWebSocketWithTheCookieComesFromThisOrigin(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.session()
	jar := s.Name + "=" + s.Value
	tests := []struct {
		name   string
		header http.Header
		want   int // 0: the upgrade succeeds
	}{
		{"cookie, own origin", http.Header{"Cookie": {jar}, "Origin": {e.base}}, 0},
		{"cookie, same-origin fetch", http.Header{"Cookie": {jar}, "Sec-Fetch-Site": {"same-origin"}}, 0},
		{"cookie, no origin", http.Header{"Cookie": {jar}}, http.StatusForbidden},
		{"cookie, cross-site", http.Header{"Cookie": {jar}, "Sec-Fetch-Site": {"cross-site"}}, http.StatusForbidden},
		{"cookie, same-site", http.Header{"Cookie": {jar}, "Sec-Fetch-Site": {"same-site"}}, http.StatusForbidden},
		{"bearer, no origin", http.Header{"Authorization": {"Bearer " + token}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, res, err := websocket.DefaultDialer.Dial(e.wsURL(), tt.header)
			if tt.want == 0 {
				if err != nil {
					t.Fatalf("dial: %v", err)
				}
				c.Close()
				return
			}
			if err == nil {
				c.Close()
				t.Fatal("the upgrade succeeded")
			}
			if res == nil || res.StatusCode != tt.want {
				t.Fatalf("dial: %v (response %v), want status %d", err, res, tt.want)
			}
		})
	}
}

// TestTwoServersKeepTheirSessions: a browser keeps cookies by host, not by
// port. Two servers on one machine (each with its own token) each keep
// their own session cookie, and a session cookie of the old name opens
// nothing.
func TestTwoServersKeepTheirSessions(t *testing.T) {
	t.Parallel()
	const otherToken = "other-token-0123456789abcdef"
	a := newEnv(t)
	b := newEnvWith(t, func(c *api.Config) { c.Token = otherToken })
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	browser := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(url string) int {
		t.Helper()
		res, err := browser.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if got := get(a.base + "/?token=" + token); got != http.StatusSeeOther {
		t.Fatalf("log in to A: %d", got)
	}
	if got := get(b.base + "/?token=" + otherToken); got != http.StatusSeeOther {
		t.Fatalf("log in to B: %d", got)
	}
	for name, e := range map[string]*env{"A": a, "B": b} {
		if got := get(e.base + "/api/v1/runs"); got != http.StatusOK {
			t.Errorf("server %s after both logged in: GET /api/v1/runs = %d, want 200", name, got)
		}
	}
	// The cookie of the old name, with a session value that was right, is
	// not read.
	old := &http.Cookie{Name: "steward_session", Value: a.session().Value}
	api := a.do("GET", "/api/v1/runs", nil, withCookie(old))
	wantError(t, api, http.StatusUnauthorized, "unauthorized")
}
