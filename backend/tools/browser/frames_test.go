package browser

import (
	"fmt"
	"html"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// hostServer is a test server that counts the requests of each path.
type hostServer struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int
}

func newHostServer(tb testing.TB, h http.Handler) *hostServer {
	s := &hostServer{hits: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.Path]++
		s.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	tb.Cleanup(s.Close)
	return s
}

// at is the server's URL for p under host (127.0.0.1 or localhost: two
// sites, so a frame of one in a page of the other is out of process).
func (s *hostServer) at(host, p string) string {
	return strings.Replace(s.URL, "127.0.0.1", host, 1) + p
}

func (s *hostServer) port() string { return s.URL[strings.LastIndexByte(s.URL, ':')+1:] }

func (s *hostServer) requests() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.hits)
}

func htmlPage(title, body string) string {
	return "<!doctype html><html><head><title>" + title + "</title></head><body>" + body + "</body></html>"
}

// TestDomainGuardCoversFrames checks that the guard holds in every frame
// and window of the page, not only in the page's own target: with site
// isolation a cross-site frame is a target of its own, and so is a popup.
// The agent may browse 127.0.0.1:<page> and localhost:<frame>; the server
// "out" is on neither allowed port, under both host names (one is the
// frame's site, one the page's), and must never be asked for a document.
func TestDomainGuardCoversFrames(t *testing.T) {
	out := newHostServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, htmlPage("Outside", "<p>Outside content</p>"))
	}))
	fmux := http.NewServeMux()
	fmux.HandleFunc("/link", func(w http.ResponseWriter, r *http.Request) {
		// A link the frame's own script clicks: a link click in the frame.
		fmt.Fprint(w, htmlPage("Inner", fmt.Sprintf(`<p>Inner frame</p><a id="go" href="%s">Go out</a>
<script>setTimeout(() => document.getElementById("go").click(), 50)</script>`, out.at("localhost", "/by-link"))))
	})
	fmux.HandleFunc("/location", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, htmlPage("Inner", fmt.Sprintf(`<p>Inner frame</p><script>setTimeout(() => { location.href = %q }, 50)</script>`, out.at("127.0.0.1", "/by-location"))))
	})
	fmux.HandleFunc("/bounce", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, htmlPage("Inner", `<p>Inner frame</p><script>setTimeout(() => { location.href = "/redirect" }, 50)</script>`))
	})
	fmux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, out.at("localhost", "/by-redirect"), http.StatusFound)
	})
	fmux.HandleFunc("/popup", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, htmlPage("Inner", fmt.Sprintf(`<p>Inner frame</p><script>window.open(%q)</script>`, out.at("localhost", "/by-frame-popup"))))
	})
	frame := newHostServer(t, fmux)

	page := newHostServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/frame":
			// ?src= is the frame's URL.
			fmt.Fprint(w, htmlPage("Host", fmt.Sprintf(`<h1>Host page</h1><iframe src="%s" width="400" height="200"></iframe>`, html.EscapeString(r.URL.Query().Get("src")))))
		case "/popup":
			fmt.Fprint(w, htmlPage("Host", fmt.Sprintf(`<h1>Host page</h1><script>window.open(%q)</script>`, out.at("localhost", "/by-popup"))))
		default:
			http.NotFound(w, r)
		}
	}))
	domains := []string{"127.0.0.1:" + page.port(), "localhost:" + frame.port()}

	tests := []struct {
		name    string
		open    string // the page to open
		refused string // the URL whose navigation must be refused
		inner   string // the path of the allowed frame that must have loaded
		// popup: the popup closer may close the window before its
		// navigation starts, and then nothing is refused; the window's
		// note is enough, the server's count is the check.
		popup bool
	}{
		{"frame from a disallowed host", page.at("127.0.0.1", "/frame?src="+out.at("localhost", "/as-frame")), out.at("localhost", "/as-frame"), "", false},
		{"link clicked in an allowed cross-site frame", page.at("127.0.0.1", "/frame?src="+frame.at("localhost", "/link")), out.at("localhost", "/by-link"), "/link", false},
		{"location set in an allowed cross-site frame", page.at("127.0.0.1", "/frame?src="+frame.at("localhost", "/location")), out.at("127.0.0.1", "/by-location"), "/location", false},
		{"redirect in an allowed cross-site frame", page.at("127.0.0.1", "/frame?src="+frame.at("localhost", "/bounce")), out.at("localhost", "/by-redirect"), "/redirect", false},
		{"popup of the page", page.at("127.0.0.1", "/popup"), out.at("localhost", "/by-popup"), "", true},
		{"popup of an allowed cross-site frame", page.at("127.0.0.1", "/frame?src="+frame.at("localhost", "/popup")), out.at("localhost", "/by-frame-popup"), "/popup", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, Options{})
			f.env.Domains = domains
			seen := f.ok(Open, map[string]any{"url": tt.open})
			if !strings.Contains(seen, `heading "Host page"`) {
				t.Fatalf("the host page did not load:\n%s", seen)
			}
			if tt.inner != "" {
				s := f.m.lookup(f.env.RunID)
				if !hasFrameTarget(t, s, frame.at("localhost", "")) {
					t.Errorf("the allowed cross-site frame is not a target of its own: the test does not exercise site isolation")
				}
			}
			// The frame navigates (or the popup opens) on its own after it
			// loaded: look until the refusal is reported.
			want := "navigation to " + tt.refused + " was refused"
			done := func(notes string) bool {
				return strings.Contains(notes, want) || tt.popup && strings.Contains(notes, "new window; it was closed")
			}
			notes := notesOf(seen)
			for deadline := time.Now().Add(10 * time.Second); !done(notes) && time.Now().Before(deadline); {
				time.Sleep(100 * time.Millisecond)
				seen = f.ok(Snapshot, map[string]any{})
				notes += notesOf(seen)
			}
			if !done(notes) {
				t.Errorf("no %q in the notes the model saw:\n%s\nlast result:\n%s", want, notes, seen)
			}
			if strings.Contains(notes, want) && !strings.Contains(notes, "asked for by a frame of the page or a window it opened") {
				t.Errorf("the refusal does not say it was not the page's own navigation:\n%s", notes)
			}
			if tt.inner != "" && frame.requests()[tt.inner] == 0 {
				t.Errorf("the allowed frame %s never loaded (frame server saw %v)", tt.inner, frame.requests())
			}
			// A request on its way when the notes came would arrive soon
			// after.
			time.Sleep(300 * time.Millisecond)
			if got := out.requests(); len(got) > 0 {
				t.Errorf("the disallowed server was asked for %v", got)
			}
			out.mu.Lock()
			clear(out.hits)
			out.mu.Unlock()
		})
	}
}

// notesOf returns the notes lines ("[...]") at the head of a result.
func notesOf(result string) string {
	var b strings.Builder
	for line := range strings.Lines(result) {
		if !strings.HasPrefix(line, "[") {
			break
		}
		b.WriteString(line)
	}
	return b.String()
}

// hasFrameTarget reports whether the browser has an out-of-process frame
// whose URL starts with prefix, waiting a little for it to commit.
func hasFrameTarget(tb testing.TB, s *session, prefix string) bool {
	tb.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		res, err := chromedp.CallBrowser(s.ctx, target.GetTargets, target.GetTargetsParams{})
		if err != nil {
			tb.Fatalf("list targets: %v", err)
		}
		for _, info := range res.TargetInfos {
			if info.Type == "iframe" && strings.HasPrefix(info.URL, prefix) {
				return true
			}
		}
	}
	return false
}

// TestSnapshotShowsFrames checks that a same-site frame's content is in the
// snapshot with refs that browser_act can use (also to click a link that
// the guard refuses), and that a cross-site frame, out of process, is shown
// by its address.
func TestSnapshotShowsFrames(t *testing.T) {
	out := newHostServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, htmlPage("Outside", "<p>Outside content</p>"))
	}))
	srv := newHostServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/outer":
			fmt.Fprint(w, htmlPage("Outer", fmt.Sprintf(`<h1>Outer</h1><iframe src="/inner"></iframe><iframe src="%s"></iframe>`, html.EscapeString(r.URL.Query().Get("other")))))
		default:
			fmt.Fprint(w, htmlPage("Inner", fmt.Sprintf(`<h2>Inner heading</h2><label>Inner field <input></label>
<button onclick="this.textContent = 'Clicked ' + document.querySelector('input').value">Inner button</button>
<a href="%s">Away</a>`, out.at("localhost", "/away"))))
		}
	}))
	f := newFixture(t, Options{})
	f.env.Domains = []string{"127.0.0.1:" + srv.port(), "localhost:" + srv.port()}
	other := srv.at("localhost", "/inner")
	snap := f.ok(Open, map[string]any{"url": srv.at("127.0.0.1", "/outer?other="+other)})
	for _, want := range []string{
		"- Iframe [ref=e2] url=/inner\n  - heading \"Inner heading\"",
		"(a frame from " + other + ": its content is not shown here",
	} {
		if !strings.Contains(snap, want) {
			t.Errorf("no %q in the snapshot:\n%s", want, snap)
		}
	}
	f.ok(Act, map[string]any{"action": "fill", "ref": ref(t, snap, `textbox "Inner field"`), "value": "Ada"})
	res := f.ok(Act, map[string]any{"action": "click", "ref": ref(t, snap, `button "Inner button"`)})
	if !strings.Contains(res, `button "Clicked Ada"`) {
		t.Errorf("after fill and click in the frame:\n%s", res)
	}
	res = f.ok(Act, map[string]any{"action": "click", "ref": ref(t, snap, `link "Away"`)})
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(res, "was refused") && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		res += f.ok(Snapshot, map[string]any{})
	}
	if !strings.Contains(res, "navigation to "+out.at("localhost", "/away")+" was refused") || !strings.Contains(res, "asked for by a frame") {
		t.Errorf("link clicked in the frame:\n%s", res)
	}
	if got := out.requests(); len(got) > 0 {
		t.Errorf("the disallowed server was asked for %v", got)
	}
}
