package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"steward/backend/tool"
)

// profileRoot is TMPDIR for this test binary: chromedp makes each
// browser's profile directory under it, and every Chromium process carries
// --user-data-dir=<that directory>, so scanning /proc for it finds every
// process the tests started, orphans included.
var profileRoot string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "browser-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	profileRoot = dir
	os.Setenv("TMPDIR", dir)
	code := m.Run()
	if left := chromiumProcs(); len(left) > 0 && code == 0 {
		fmt.Fprintf(os.Stderr, "Chromium processes left after the tests: %v\n", left)
		code = 1
	}
	if err := goleak.Find(); err != nil && code == 0 {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// chromiumProcs returns the pids of live processes started with a profile
// under profileRoot.
func chromiumProcs() []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	want := []byte("--user-data-dir=" + profileRoot)
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmd, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !bytes.Contains(cmd, want) {
			continue
		}
		if st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil {
			// A zombie is gone but for its parent's wait.
			if f := strings.Fields(string(st[bytes.LastIndexByte(st, ')')+1:])); len(f) > 0 && f[0] == "Z" {
				continue
			}
		}
		pids = append(pids, pid)
	}
	return pids
}

// needChromium fails the test on a machine without a browser: `make test`
// installs Chromium, and a test that skipped would hide that it did not.
func needChromium(tb testing.TB) {
	tb.Helper()
	if _, err := FindChromium(""); err != nil {
		tb.Fatalf("%v (make test installs it)", err)
	}
}

// fixture is a Manager with its tools in a registry, and a run's Env.
type fixture struct {
	t   testing.TB
	m   *Manager
	reg *tool.Registry
	env tool.Env
	srv *site
}

func newFixture(tb testing.TB, o Options) *fixture {
	tb.Helper()
	needChromium(tb)
	var logMu sync.Mutex
	o.Logf = func(f string, a ...any) {
		logMu.Lock()
		defer logMu.Unlock()
		tb.Logf(f, a...)
	}
	m := NewManager(o)
	reg := tool.NewRegistry()
	for _, tl := range m.Tools() {
		if err := reg.Register(tl); err != nil {
			tb.Fatal(err)
		}
	}
	reg.AddRunEnder(m)
	f := &fixture{t: tb, m: m, reg: reg, srv: newSite(tb), env: tool.Env{
		RunID: "run1", Workspace: tb.TempDir(), Artifacts: tb.TempDir(), NodeID: "n1",
	}}
	tb.Cleanup(func() {
		m.Close()
		if left := chromiumProcs(); len(left) > 0 {
			tb.Errorf("Chromium processes left after Close: %v", left)
		}
	})
	return f
}

// call runs a tool through the registry, as the engine does, with a
// generous deadline for a shared machine.
func (f *fixture) call(name string, args any) tool.Result {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	return f.callCtx(ctx, name, args)
}

func (f *fixture) callCtx(ctx context.Context, name string, args any) tool.Result {
	f.t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		f.t.Fatal(err)
	}
	res, err := f.reg.Call(ctx, f.env, name, raw)
	if err != nil {
		f.t.Fatalf("%s: %v", name, err)
	}
	return res
}

// ok runs a tool and fails the test on a model-visible failure.
func (f *fixture) ok(name string, args any) string {
	f.t.Helper()
	res := f.call(name, args)
	if res.IsError {
		f.t.Fatalf("%s %v: %s: %s", name, args, res.Code, res.Output)
	}
	return res.Output
}

// ref finds the ref of the element line of a snapshot that starts with
// prefix (such as `textbox "Name"`).
func ref(tb testing.TB, snap, prefix string) string {
	tb.Helper()
	re := regexp.MustCompile(`(?m)^\s*- ` + regexp.QuoteMeta(prefix) + `[^\n]*\[ref=(e\d+)\]`)
	m := re.FindStringSubmatch(snap)
	if m == nil {
		tb.Fatalf("no %s in the snapshot:\n%s", prefix, snap)
	}
	return m[1]
}

// site is the test's web server. Its URL uses 127.0.0.1; other() gives the
// same server under localhost, a different host for the domain guard.
type site struct {
	*httptest.Server
	release chan struct{} // closed at cleanup: hanging handlers return
}

func (s *site) url(p string) string   { return s.URL + p }
func (s *site) other(p string) string { return strings.Replace(s.URL, "127.0.0.1", "localhost", 1) + p }

func newSite(tb testing.TB) *site {
	s := &site{release: make(chan struct{})}
	mux := http.NewServeMux()
	page := func(title, body string) string {
		return "<!doctype html><html><head><title>" + title + "</title></head><body>" + body + "</body></html>"
	}
	mux.HandleFunc("/form", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, page("Sign up", `<main><h1>Sign up</h1>
<form action="/result" method="post" enctype="multipart/form-data">
<label>Name <input name="name"></label>
<label>Email <input name="email" type="email" value="old@example.com"></label>
<label><input type="checkbox" name="agree"> I agree</label>
<label>Colour <select name="colour"><option value="r">Red</option><option value="g">Green</option><option value="b">Blue</option></select></label>
<label>Notes <textarea name="notes"></textarea></label>
<label>Attachment <input type="file" name="file"></label>
<button type="submit">Send</button>
</form></main>`))
	})
	mux.HandleFunc("/result", func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseMultipartForm(1 << 20); err != nil {
			_ = r.ParseForm()
		}
		file := "none"
		if r.MultipartForm != nil && len(r.MultipartForm.File["file"]) > 0 {
			file = r.MultipartForm.File["file"][0].Filename
		}
		fmt.Fprint(w, page("Thanks", fmt.Sprintf(`<main><h1>Thanks, %s</h1><p>email=%s agree=%s colour=%s notes=%s file=%s</p></main>`,
			html.EscapeString(r.FormValue("name")), html.EscapeString(r.FormValue("email")), r.FormValue("agree"), r.FormValue("colour"),
			html.EscapeString(r.FormValue("notes")), html.EscapeString(file))))
	})
	mux.HandleFunc("/links", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, page("Links", fmt.Sprintf(`<nav><a href="/form">Form</a> <a href="/dialog">Dialog</a> <a href="%s">Elsewhere</a> <a href="/redirect-out">Bounce</a>
<a href="/form" target="_blank">Form in a new window</a></nav><p>Pick a link.</p>`, s.other("/form"))))
	})
	mux.HandleFunc("/redirect-out", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, s.other("/form"), http.StatusFound)
	})
	mux.HandleFunc("/dialog", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, page("Dialogs", `<button onclick="alert('Hello from the page')">Alert</button>
<button onclick="document.getElementById('out').textContent = confirm('Delete it?') ? 'confirmed' : 'declined'">Confirm</button>
<p id="out">nothing yet</p>`))
	})
	mux.HandleFunc("/hang", func(w http.ResponseWriter, r *http.Request) {
		// Headers and the start of the page, then nothing until the test
		// ends: the page never finishes loading.
		fmt.Fprint(w, "<!doctype html><html><head><title>Slow</title></head><body><p>Loading forever</p>")
		w.(http.Flusher).Flush()
		select {
		case <-s.release:
		case <-r.Context().Done():
		}
	})
	mux.HandleFunc("/counter", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, page("Counter", `<button onclick="this.nextElementSibling.textContent = +this.nextElementSibling.textContent + 1">Add</button><span>0</span>
<div style="width:40px;height:40px;background:red;animation:spin 1s linear infinite"></div><style>@keyframes spin{to{transform:rotate(360deg)}}</style>`))
	})
	mux.HandleFunc("/article", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, page("Article", `<nav><a href="/">Home</a></nav><article><h1>Go tips</h1><p>Use <a href="/ctx">contexts</a> and <code>errgroup</code>.</p>
<ul><li>one</li><li>two</li></ul><table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table></article><footer>© test</footer>`))
	})
	big := bigPage()
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, big) })
	s.Server = httptest.NewServer(mux)
	tb.Cleanup(func() {
		close(s.release)
		s.Close()
	})
	return s
}

// bigPage has 2,000 elements: links, buttons, paragraphs and inputs.
func bigPage() string {
	var b strings.Builder
	b.WriteString("<!doctype html><html><head><title>Big</title></head><body><main>")
	for i := range 2000 {
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, `<a href="/l%d">link %d</a>`, i, i)
		case 1:
			fmt.Fprintf(&b, `<button>button %d</button>`, i)
		case 2:
			fmt.Fprintf(&b, `<p>paragraph %d</p>`, i)
		case 3:
			fmt.Fprintf(&b, `<input name="i%d" value="v%d">`, i, i)
		}
	}
	b.WriteString("</main></body></html>")
	return b.String()
}
