//go:build desktop

// Command smokedemo is a throwaway check of the desktop shell: it serves a colourful page on
// a loopback port, the way steward's server does (a ?token= URL that sets a session cookie and
// redirects to /), and opens it with app.Run. The page then checks, in the window, what the
// real UI relies on: the cookie session, a same-origin fetch and a WebSocket, and shows the
// result in large type so that a screenshot tells. Run it through .ci/desktop-smoke.sh:
//
//	CGO_ENABLED=1 go build -tags desktop,production,webkit2_41 -o /tmp/smokedemo ./app/internal/smokedemo
//	.ci/desktop-smoke.sh /tmp/smokedemo
//
// Environment: SMOKEDEMO_SAMESITE=lax|none relaxes the session cookie (default Strict);
// SMOKEDEMO_CLOSE_AFTER=3s cancels app.Run's context after that long.
package main

import (
	"context"
	"crypto/rand"
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"steward/app"
)

func main() {
	log.SetFlags(log.Ltime | log.Lmicroseconds)
	if err := run(); err != nil {
		log.Printf("smokedemo: %v", err)
		os.Exit(1)
	}
}

func run() error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// SMOKEDEMO_CLOSE_AFTER=3s cancels the context after a while: checks that app.Run closes
	// the window on cancellation alone, without the signal that Wails also listens for.
	if d, err := time.ParseDuration(os.Getenv("SMOKEDEMO_CLOSE_AFTER")); err == nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}

	tok := make([]byte, 16)
	_, _ = rand.Read(tok) // crypto/rand.Read never fails
	token := hex.EncodeToString(tok)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	srv := &http.Server{Handler: handler(token), ReadHeaderTimeout: 5 * time.Second}
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()

	url := fmt.Sprintf("http://%s/?token=%s", ln.Addr(), token)
	log.Printf("smokedemo: serving %s", url)

	err = app.Run(ctx, app.Options{URL: url, Logf: log.Printf})
	log.Printf("smokedemo: window closed (run error %v, ctx %v)", err, ctx.Err())

	shutCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	if serr := srv.Shutdown(shutCtx); serr != nil {
		return errors.Join(err, fmt.Errorf("shutdown: %w", serr))
	}
	if serr := <-serveErr; !errors.Is(serr, http.ErrServerClosed) {
		return errors.Join(err, fmt.Errorf("serve: %w", serr))
	}
	return err
}

const cookieName = "smokedemo_session"

func handler(token string) http.Handler {
	mux := http.NewServeMux()
	authed := func(r *http.Request) bool {
		c, err := r.Cookie(cookieName)
		return err == nil && c.Value == token
	}
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		if t := r.URL.Query().Get("token"); t != "" {
			if t != token {
				http.Error(w, "bad token", http.StatusUnauthorized)
				return
			}
			http.SetCookie(w, &http.Cookie{Name: cookieName, Value: token, Path: "/", HttpOnly: true, SameSite: sameSite()})
			http.Redirect(w, r, "/", http.StatusSeeOther)
			log.Printf("smokedemo: token accepted, cookie set, redirecting to /")
			return
		}
		if !authed(r) {
			http.Error(w, "no session", http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(page))
	})
	mux.HandleFunc("GET /api/ping", func(w http.ResponseWriter, r *http.Request) {
		if !authed(r) {
			http.Error(w, "no session", http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"pong":true}`))
		log.Printf("smokedemo: fetch /api/ping ok")
	})
	mux.HandleFunc("GET /ws", func(w http.ResponseWriter, r *http.Request) {
		if !authed(r) {
			http.Error(w, "no session", http.StatusUnauthorized)
			return
		}
		if err := wsHello(w, r); err != nil {
			log.Printf("smokedemo: websocket: %v", err)
			return
		}
		log.Printf("smokedemo: websocket ok")
	})
	return mux
}

// sameSite is the session cookie's SameSite mode: Strict, the strictest a server may choose,
// unless SMOKEDEMO_SAMESITE says lax or none.
func sameSite() http.SameSite {
	switch os.Getenv("SMOKEDEMO_SAMESITE") {
	case "lax":
		return http.SameSiteLaxMode
	case "none":
		return http.SameSiteDefaultMode
	}
	return http.SameSiteStrictMode
}

// wsHello completes a WebSocket handshake and sends one text message, "hello": just enough
// for the page to prove that a WebSocket to the loopback server opens from the window.
func wsHello(w http.ResponseWriter, r *http.Request) error {
	key := r.Header.Get("Sec-WebSocket-Key")
	if key == "" {
		return errors.New("not a websocket request")
	}
	conn, rw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return fmt.Errorf("hijack: %w", err)
	}
	defer conn.Close()
	sum := sha1.Sum([]byte(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11")) // RFC 6455 §1.3
	fmt.Fprintf(rw, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n\r\n",
		base64.StdEncoding.EncodeToString(sum[:]))
	msg := "hello"
	rw.Write([]byte{0x81, byte(len(msg))}) // FIN + text frame, unmasked, short length
	rw.WriteString(msg)
	if err := rw.Flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	// Keep the connection open until the page closes it.
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, _ = rw.ReadByte()
	return nil
}

const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Steward smoke test</title>
<style>
  body { margin: 0; font: 28px/1.4 system-ui, sans-serif; color: #fff;
         background: linear-gradient(135deg, #6d28d9 0%, #db2777 50%, #f59e0b 100%); min-height: 100vh; }
  main { padding: 48px; }
  h1 { font-size: 64px; margin: 0 0 24px; }
  .bar { display: flex; height: 80px; margin: 24px 0; }
  .bar div { flex: 1; }
  li { margin: 8px 0; }
  .ok { color: #bbf7d0; } .bad { color: #fecaca; }
  #verdict { font-size: 48px; font-weight: bold; padding: 16px 24px; border-radius: 12px; display: inline-block; background: #0008; }
</style></head>
<body><main>
<h1>Steward desktop smoke test</h1>
<div class="bar"><div style="background:#ef4444"></div><div style="background:#f97316"></div><div style="background:#eab308"></div><div style="background:#22c55e"></div><div style="background:#06b6d4"></div><div style="background:#3b82f6"></div><div style="background:#a855f7"></div></div>
<ul>
  <li id="origin">origin: …</li>
  <li id="fetch">fetch /api/ping: …</li>
  <li id="ws">WebSocket /ws: …</li>
</ul>
<div id="verdict">checking…</div>
</main>
<script>
  const set = (id, text, ok) => { const el = document.getElementById(id); el.textContent = text; el.className = ok ? 'ok' : 'bad'; };
  set('origin', 'origin: ' + location.origin, location.protocol === 'http:');
  const fetchOK = fetch('/api/ping').then(r => r.json()).then(j => j.pong === true).catch(() => false)
    .then(ok => { set('fetch', 'fetch /api/ping: ' + (ok ? 'ok' : 'FAILED'), ok); return ok; });
  const wsOK = new Promise(resolve => {
    const ws = new WebSocket('ws://' + location.host + '/ws');
    const t = setTimeout(() => resolve(false), 5000);
    ws.onmessage = e => { clearTimeout(t); ws.close(); resolve(e.data === 'hello'); };
    ws.onerror = () => { clearTimeout(t); resolve(false); };
  }).then(ok => { set('ws', 'WebSocket /ws: ' + (ok ? 'ok' : 'FAILED'), ok); return ok; });
  Promise.all([fetchOK, wsOK]).then(([a, b]) => {
    const ok = a && b && location.protocol === 'http:';
    set('verdict', ok ? 'ALL CHECKS PASSED' : 'SOME CHECKS FAILED', ok);
  });
</script>
</body></html>`
