package mcpserver_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestStreamableHTTPBehindTheAPIsAuth connects over real HTTP on loopback,
// through the API server's token, Host and Origin checks.
func TestStreamableHTTPBehindTheAPIsAuth(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.serve(t)
	for _, tc := range []struct {
		name string
		set  map[string]string
	}{
		{"no token", nil},
		{"wrong token", map[string]string{"Authorization": "Bearer wrong-token-0123456789"}},
		{"another site's page", map[string]string{"Authorization": "Bearer " + token, "Origin": "http://evil.example"}},
		{"a page on another port", map[string]string{"Authorization": "Bearer " + token, "Origin": "http://127.0.0.1:1"}},
		{"a rebound host name", map[string]string{"Authorization": "Bearer " + token, "Host": "evil.example:" + strings.Split(s.host, ":")[1]}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if cs, err := connectHTTP(t, s.url, tc.set); err == nil {
				_ = cs.Close()
				t.Fatalf("connected with %v", tc.set)
			}
		})
	}
	t.Run("raw answers", func(t *testing.T) {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
		for _, tc := range []struct {
			name   string
			method string
			set    map[string]string
			want   int
		}{
			{"no token", "POST", nil, http.StatusUnauthorized},
			{"bad origin", "POST", map[string]string{"Authorization": "Bearer " + token, "Origin": "http://evil.example"}, http.StatusForbidden},
			// The stateless transport has no stream to GET and no session to DELETE.
			{"GET", "GET", map[string]string{"Authorization": "Bearer " + token}, http.StatusMethodNotAllowed},
			{"DELETE", "DELETE", map[string]string{"Authorization": "Bearer " + token}, http.StatusMethodNotAllowed},
			{"GET without token", "GET", nil, http.StatusUnauthorized},
		} {
			req, err := http.NewRequest(tc.method, s.url, strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			for k, v := range tc.set {
				req.Header.Set(k, v)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != tc.want {
				t.Errorf("%s: %d %s, want %d", tc.name, res.StatusCode, b, tc.want)
			}
		}
	})
	t.Run("with the token", func(t *testing.T) {
		cs, err := connectHTTP(t, s.url, map[string]string{"Authorization": "Bearer " + token})
		if err != nil {
			t.Fatalf("connect with the token: %v", err)
		}
		runDemoToApproval(t, e, cs)
	})
}
