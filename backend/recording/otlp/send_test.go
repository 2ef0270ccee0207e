package otlp

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// collector is an OTLP/HTTP receiver that records what it was sent and
// answers with the given status and body.
type collector struct {
	code   int
	answer string
	ctype  string

	path, contentType, auth string
	body                    []byte
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.path, c.contentType, c.auth = r.URL.Path, r.Header.Get("Content-Type"), r.Header.Get("Authorization")
	c.body, _ = io.ReadAll(r.Body)
	if r.Method != http.MethodPost {
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	if c.ctype != "" {
		w.Header().Set("Content-Type", c.ctype)
	}
	w.WriteHeader(c.code)
	_, _ = io.WriteString(w, c.answer)
}

func TestSend(t *testing.T) {
	t.Parallel()
	events, _ := scriptedRun()
	body, err := Traces("run_1", events, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, path, wantPath string
	}{
		{"no path: /v1/traces appended", "", "/v1/traces"},
		{"a bare slash counts as no path", "/", "/v1/traces"},
		{"a path is kept", "/api/public/otel/v1/traces", "/api/public/otel/v1/traces"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			col := &collector{code: http.StatusOK, answer: "{}", ctype: "application/json"}
			srv := httptest.NewServer(col)
			defer srv.Close()
			err := Send(context.Background(), srv.URL+c.path, body, map[string]string{"Authorization": "Basic cGs6c2s=", "Content-Type": "text/plain"})
			if err != nil {
				t.Fatal(err)
			}
			if col.path != c.wantPath || col.contentType != "application/json" || col.auth != "Basic cGs6c2s=" || !bytes.Equal(col.body, body) {
				t.Errorf("collector got path %q, content type %q, auth %q, %d bytes (want %s, application/json, the header, %d bytes)",
					col.path, col.contentType, col.auth, len(col.body), c.wantPath, len(body))
			}
		})
	}
}

func TestSendFailures(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 4000)
	for _, c := range []struct {
		name     string
		col      *collector
		userinfo string
		want     []string
		notWant  []string
	}{
		{"400 with the status and the body's head", &collector{code: 400, answer: `{"code":3,"message":"invalid span id: ` + long + `"}`},
			"", []string{"400 Bad Request", `"message":"invalid span id: xxx`, "…"}, []string{long}},
		{"500 with an empty body", &collector{code: 500}, "", []string{"500 Internal Server Error", "(empty body)"}, nil},
		{"credentials in the URL are not repeated", &collector{code: 401, answer: "no"}, "user:hunter2secret@",
			[]string{"401 Unauthorized", "user:xxxxx@"}, []string{"hunter2secret"}},
		{"partial success", &collector{code: 200, ctype: "application/json", answer: `{"partialSuccess":{"rejectedSpans":"2","errorMessage":"span too old"}}`},
			"", []string{"rejected 2 spans", "span too old"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(c.col)
			defer srv.Close()
			url := strings.Replace(srv.URL, "http://", "http://"+c.userinfo, 1)
			err := Send(context.Background(), url, []byte(`{"resourceSpans":[]}`), nil)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			for _, w := range c.notWant {
				if strings.Contains(err.Error(), w) {
					t.Errorf("error %q contains %q", err, w)
				}
			}
		})
	}
}

func TestSendRefusesBadEndpoints(t *testing.T) {
	t.Parallel()
	for _, ep := range []string{"", "localhost:4318", "ftp://collector/v1/traces", "http://", "://nope", "file:///tmp/x"} {
		if err := Send(context.Background(), ep, []byte("{}"), nil); err == nil || !strings.Contains(err.Error(), "http:// or https://") {
			t.Errorf("%q: err = %v", ep, err)
		}
	}
}

func TestSendStopsWithTheContext(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // a collector that does not answer until the test ends
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release) // before Close, which waits for the handler
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := Send(ctx, srv.URL, []byte("{}"), nil)
	if err == nil || !strings.Contains(err.Error(), "deadline exceeded") || time.Since(start) > 5*time.Second {
		t.Errorf("err = %v after %v, want the context's deadline", err, time.Since(start))
	}
}
