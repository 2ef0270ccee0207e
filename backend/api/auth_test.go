package api_test

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/gorilla/websocket"
)

func TestAuth(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	forged := &http.Cookie{Name: "steward_session", Value: token} // the token itself is not a session

	tests := []struct {
		name string
		path string
		opts []reqOpt
		want int // 200 or 401
	}{
		{"no token", "/api/v1/runs", []reqOpt{noAuth}, http.StatusUnauthorized},
		{"wrong bearer", "/api/v1/runs", []reqOpt{header("Authorization", "Bearer wrong-token-0123456789")}, http.StatusUnauthorized},
		{"bearer prefix of the token", "/api/v1/runs", []reqOpt{header("Authorization", "Bearer "+token[:len(token)-1])}, http.StatusUnauthorized},
		{"token without Bearer", "/api/v1/runs", []reqOpt{header("Authorization", token)}, http.StatusUnauthorized},
		{"basic auth", "/api/v1/runs", []reqOpt{header("Authorization", "Basic "+token)}, http.StatusUnauthorized},
		{"forged cookie", "/api/v1/runs", []reqOpt{withCookie(forged)}, http.StatusUnauthorized},
		{"token in the query of an API route", "/api/v1/runs?token=" + token, []reqOpt{noAuth}, http.StatusUnauthorized},
		{"right bearer", "/api/v1/runs", nil, http.StatusOK},
		{"right bearer, other route", "/api/v1/info", nil, http.StatusOK},
		{"openapi needs the token", "/api/v1/openapi.json", []reqOpt{noAuth}, http.StatusUnauthorized},
		{"healthz needs no token", "/healthz", []reqOpt{noAuth}, http.StatusOK},
		{"readyz needs no token", "/readyz", []reqOpt{noAuth}, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.with(t).do("GET", tt.path, nil, tt.opts...)
			if tt.want == http.StatusUnauthorized {
				wantError(t, r, http.StatusUnauthorized, "unauthorized")
				return
			}
			if r.status != tt.want {
				t.Fatalf("status %d, want %d; body %s", r.status, tt.want, r.body)
			}
		})
	}
}

func TestHealth(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for path, want := range map[string]string{"/healthz": `{"status":"ok"}`, "/readyz": `{"status":"ready"}`} {
		r := e.do("GET", path, nil, noAuth)
		if r.status != http.StatusOK || string(r.body) != want+"\n" {
			t.Errorf("GET %s = %d %s, want 200 %s", path, r.status, r.body, want)
		}
	}
}

func TestSessionCookie(t *testing.T) {
	t.Parallel()
	e := newEnv(t)

	session := e.session()
	if !session.HttpOnly || session.SameSite != http.SameSiteStrictMode || session.Path != "/" {
		t.Errorf("cookie %+v: want HttpOnly, SameSite=Strict, Path=/", session)
	}
	if session.Value == token {
		t.Error("the cookie holds the token itself")
	}

	cookie := &http.Cookie{Name: session.Name, Value: session.Value}
	if r := e.do("GET", "/api/v1/runs", nil, withCookie(cookie)); r.status != http.StatusOK {
		t.Errorf("GET /api/v1/runs with the cookie = %d %s, want 200", r.status, r.body)
	}
	// A wrong bearer is not rescued by a right cookie: the header decides.
	r := e.do("GET", "/api/v1/runs", nil, withCookie(cookie), header("Authorization", "Bearer nope"))
	wantError(t, r, http.StatusUnauthorized, "unauthorized")

	// The UI shell itself needs no token.
	if r := e.do("GET", "/", nil, noAuth); r.status != http.StatusOK {
		t.Errorf("GET / = %d, want 200", r.status)
	}

	// Parameters other than the token survive the redirect.
	if r := e.do("GET", "/?token="+token+"&surface=desktop", nil, noAuth); r.status != http.StatusSeeOther || r.header.Get("Location") != "/?surface=desktop" {
		t.Errorf("GET /?token=RIGHT&surface=desktop = %d Location %q", r.status, r.header.Get("Location"))
	}

	r = e.do("GET", "/?token=wrong-token-0123456789", nil, noAuth)
	if r.status != http.StatusUnauthorized {
		t.Errorf("GET /?token=WRONG = %d, want 401", r.status)
	}
	if sc := r.header.Values("Set-Cookie"); len(sc) != 0 {
		t.Errorf("GET /?token=WRONG set cookies %q", sc)
	}
}

func TestHostAndOrigin(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	port := strconv.Itoa(e.port)
	other := strconv.Itoa(e.port + 1)
	if e.port == 65535 {
		other = "1"
	}

	tests := []struct {
		name   string
		method string
		path   string
		body   any
		opts   []reqOpt
		ok     bool
	}{
		{"foreign host", "GET", "/api/v1/runs", nil, []reqOpt{withHost("evil.example:" + port)}, false},
		{"foreign host on healthz", "GET", "/healthz", nil, []reqOpt{withHost("evil.example:" + port)}, false},
		{"foreign host on the UI", "GET", "/?token=" + token, nil, []reqOpt{withHost("evil.example:" + port)}, false},
		{"loopback on another port", "GET", "/api/v1/runs", nil, []reqOpt{withHost("127.0.0.1:" + other)}, false},
		{"loopback without port", "GET", "/api/v1/runs", nil, []reqOpt{withHost("127.0.0.1")}, false},
		{"localhost", "GET", "/api/v1/runs", nil, []reqOpt{withHost("localhost:" + port)}, true},
		{"LOCALHOST", "GET", "/api/v1/runs", nil, []reqOpt{withHost("LOCALHOST:" + port)}, true},
		{"ipv6 loopback", "GET", "/api/v1/runs", nil, []reqOpt{withHost("[::1]:" + port)}, true},
		{"foreign origin on a POST", "POST", "/api/v1/agents", map[string]string{"name": "evil"}, []reqOpt{header("Origin", "http://evil.example")}, false},
		{"foreign origin with our port", "POST", "/api/v1/agents", map[string]string{"name": "evil"}, []reqOpt{header("Origin", "http://evil.example:"+port)}, false},
		{"null origin", "POST", "/api/v1/agents", map[string]string{"name": "evil"}, []reqOpt{header("Origin", "null")}, false},
		{"our origin on another port", "POST", "/api/v1/agents", map[string]string{"name": "evil"}, []reqOpt{header("Origin", "http://127.0.0.1:"+other)}, false},
		{"foreign origin on a GET", "GET", "/api/v1/runs", nil, []reqOpt{header("Origin", "http://evil.example")}, false},
		{"our origin on a POST", "POST", "/api/v1/agents", map[string]string{"name": "friend"}, []reqOpt{header("Origin", "http://127.0.0.1:"+port)}, true},
		{"our localhost origin", "GET", "/api/v1/runs", nil, []reqOpt{header("Origin", "http://localhost:"+port)}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.with(t).do(tt.method, tt.path, tt.body, tt.opts...)
			if !tt.ok {
				wantError(t, r, http.StatusForbidden, "forbidden")
				return
			}
			if r.status >= 300 {
				t.Fatalf("status %d, want success; body %s", r.status, r.body)
			}
		})
	}
	// Refused requests changed nothing.
	if r := e.do("GET", "/api/v1/agents/evil", nil); r.status != http.StatusNotFound {
		t.Errorf("the refused POST created agent evil: GET = %d", r.status)
	}
}

func TestWebSocketOriginAndAuth(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	bearer := "Bearer " + token

	tests := []struct {
		name   string
		header http.Header
		want   int // 0: the upgrade succeeds
	}{
		{"foreign origin", http.Header{"Authorization": {bearer}, "Origin": {"http://evil.example"}}, http.StatusForbidden},
		{"foreign origin on our port", http.Header{"Authorization": {bearer}, "Origin": {"http://evil.example:" + strconv.Itoa(e.port)}}, http.StatusForbidden},
		{"no token", http.Header{}, http.StatusUnauthorized},
		{"wrong token", http.Header{"Authorization": {"Bearer nope"}}, http.StatusUnauthorized},
		{"own origin", http.Header{"Authorization": {bearer}, "Origin": {e.base}}, 0},
		{"no origin", http.Header{"Authorization": {bearer}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
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

	// The session cookie opens the WebSocket too, as the UI uses it.
	s := e.session()
	h := http.Header{"Cookie": {s.Name + "=" + s.Value}, "Origin": {e.base}}
	c := e.dial(h)
	send(t, c, map[string]any{"type": "subscribe", "id": "s1"})
	if m := recv(t, c); m.Type != "caught_up" {
		t.Errorf("first message %+v, want caught_up", m)
	}
}
