package browser

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"steward/backend/tool"
)

func TestFormFillClickAndRead(t *testing.T) {
	f := newFixture(t, Options{})
	snap := f.ok(Open, map[string]any{"url": f.srv.url("/form")})
	if !strings.Contains(snap, `heading "Sign up"`) || !strings.Contains(snap, "URL: "+f.srv.url("/form")) {
		t.Fatalf("snapshot of the form:\n%s", snap)
	}
	name := ref(t, snap, `textbox "Name"`)
	email := ref(t, snap, `textbox "Email"`)
	agree := ref(t, snap, `checkbox "I agree"`)
	colour := ref(t, snap, `combobox "Colour"`)
	notes := ref(t, snap, `textbox "Notes"`)
	send := ref(t, snap, `button "Send"`)

	out := f.ok(Act, map[string]any{"action": "fill", "ref": name, "value": "Ada"})
	if !strings.Contains(out, `value="Ada"`) {
		t.Errorf("fill: the snapshot does not show the value:\n%s", out)
	}
	f.ok(Act, map[string]any{"action": "fill", "ref": email, "value": "ada@example.com"})
	out = f.ok(Act, map[string]any{"action": "check", "ref": agree})
	if !strings.Contains(out, "now checked") || !strings.Contains(out, `checkbox "I agree" [ref=`+agree+`] [checked]`) {
		t.Errorf("check:\n%s", out)
	}
	f.ok(Act, map[string]any{"action": "select", "ref": colour, "value": "Green"})
	f.ok(Act, map[string]any{"action": "type", "ref": notes, "value": "hi there"})
	out = f.ok(Act, map[string]any{"action": "click", "ref": send})
	for _, want := range []string{
		"The URL changed from " + f.srv.url("/form") + " to " + f.srv.url("/result"),
		`heading "Thanks, Ada"`,
		"email=ada@example.com agree=on colour=g notes=hi there file=none",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("after submit, no %q in:\n%s", want, out)
		}
	}
	out = f.ok(Back, map[string]any{})
	if !strings.Contains(out, `heading "Sign up"`) {
		t.Errorf("back:\n%s", out)
	}
}

func TestRefsStayWhilePageUnchanged(t *testing.T) {
	f := newFixture(t, Options{})
	f.ok(Open, map[string]any{"url": f.srv.url("/form")})
	a := f.ok(Snapshot, map[string]any{})
	b := f.ok(Snapshot, map[string]any{})
	if a != b {
		t.Fatalf("two snapshots of an unchanged page differ:\n%s\n---\n%s", a, b)
	}
	// An action that changes one field keeps every other ref.
	name := ref(t, a, `textbox "Name"`)
	c := f.ok(Act, map[string]any{"action": "fill", "ref": name, "value": "Ada"})
	for _, el := range []string{`textbox "Name"`, `checkbox "I agree"`, `button "Send"`} {
		if ref(t, a, el) != ref(t, c, el) {
			t.Errorf("%s: ref %s became %s", el, ref(t, a, el), ref(t, c, el))
		}
	}
	// A ref of a page that is gone is refused with advice.
	f.ok(Open, map[string]any{"url": f.srv.url("/links")})
	res := f.call(Act, map[string]any{"action": "click", "ref": name})
	if !res.IsError || res.Code != CodeStaleRef || !strings.Contains(res.Output, "take a new snapshot") {
		t.Errorf("stale ref: %+v", res)
	}
	res = f.call(Act, map[string]any{"action": "click", "ref": "e99999"})
	if res.Code != CodeStaleRef {
		t.Errorf("unknown ref: %+v", res)
	}
}

func TestDialogsAreAnsweredAndReported(t *testing.T) {
	f := newFixture(t, Options{})
	snap := f.ok(Open, map[string]any{"url": f.srv.url("/dialog")})
	out := f.ok(Act, map[string]any{"action": "click", "ref": ref(t, snap, `button "Alert"`)})
	if !strings.Contains(out, `alert dialog said "Hello from the page"; it was accepted`) {
		t.Errorf("alert:\n%s", out)
	}
	out = f.ok(Act, map[string]any{"action": "click", "ref": ref(t, snap, `button "Confirm"`)})
	if !strings.Contains(out, `confirm dialog said "Delete it?"`) || !strings.Contains(out, "confirmed") {
		t.Errorf("confirm:\n%s", out)
	}
}

func TestDomainGuard(t *testing.T) {
	f := newFixture(t, Options{})
	f.env.Domains = []string{"127.0.0.1"}

	res := f.call(Open, map[string]any{"url": f.srv.other("/form")})
	if res.Code != CodeRefused || !strings.Contains(res.Output, `may only browse "127.0.0.1"`) {
		t.Fatalf("open of another domain: %+v", res)
	}
	if n := f.m.Sessions(); n != 0 {
		t.Errorf("a refused open started a browser (%d sessions)", n)
	}
	if key, ok := f.reg.Key(Open, f.env, []byte(`{"url":"`+f.srv.other("/x")+`"}`)); !ok || key != "localhost" {
		t.Errorf("key of browser_open = %q, %v", key, ok)
	}
	if key, ok := f.reg.Key(Snapshot, f.env, []byte(`{}`)); !ok || key != "" {
		t.Errorf("key without a session = %q, %v", key, ok)
	}

	// A redirect to another domain is stopped at the network.
	res = f.call(Open, map[string]any{"url": f.srv.url("/redirect-out")})
	if res.Code != CodeRefused || !strings.Contains(res.Output, "navigation to "+f.srv.other("/form")+" was refused") {
		t.Fatalf("redirect out: %+v", res)
	}

	// So is a link: the page stays where it was.
	snap := f.ok(Open, map[string]any{"url": f.srv.url("/links")})
	if key, _ := f.reg.Key(Act, f.env, []byte(`{}`)); key != "127.0.0.1" {
		t.Errorf("key of browser_act on the page = %q", key)
	}
	out := f.ok(Act, map[string]any{"action": "click", "ref": ref(t, snap, `link "Elsewhere"`)})
	if !strings.Contains(out, "navigation to "+f.srv.other("/form")+" was refused") || !strings.Contains(out, "URL: "+f.srv.url("/links")) ||
		strings.Contains(out, "asked for by a frame") {
		t.Errorf("link out:\n%s", out)
	}
	// A link within the domain still works, and so does a redirect chain
	// that ends outside after a click.
	out = f.ok(Act, map[string]any{"action": "click", "ref": ref(t, snap, `link "Bounce"`)})
	if !strings.Contains(out, "was refused") {
		t.Errorf("bounce link:\n%s", out)
	}
	out = f.ok(Act, map[string]any{"action": "click", "ref": ref(t, snap, `link "Form"`)})
	if !strings.Contains(out, `heading "Sign up"`) {
		t.Errorf("link within the domain:\n%s", out)
	}
}

func TestPopupsAreClosed(t *testing.T) {
	f := newFixture(t, Options{})
	snap := f.ok(Open, map[string]any{"url": f.srv.url("/links")})
	out := f.ok(Act, map[string]any{"action": "click", "ref": ref(t, snap, `link "Form in a new window"`)})
	// The popup may be reported by this call or the next.
	if !strings.Contains(out, "new window") {
		out = f.ok(Snapshot, map[string]any{})
	}
	if !strings.Contains(out, "new window; it was closed") {
		t.Errorf("popup:\n%s", out)
	}
}

func TestPageThatNeverLoads(t *testing.T) {
	f := newFixture(t, Options{})
	start := time.Now()
	out := f.ok(Open, map[string]any{"url": f.srv.url("/hang"), "wait_ms": 1500})
	if !strings.Contains(out, "still loading") && !strings.Contains(out, "did not answer") {
		t.Errorf("no note of the page still loading:\n%s", out)
	}
	if !strings.Contains(out, "Loading forever") {
		t.Errorf("the page as it is:\n%s", out)
	}
	t.Logf("open of a page that never loads returned after %s", time.Since(start))
	// The browser is still usable.
	f.ok(Open, map[string]any{"url": f.srv.url("/form")})
}

func TestCancelThenEndRunClosesBrowser(t *testing.T) {
	f := newFixture(t, Options{})
	f.ok(Open, map[string]any{"url": "about:blank"})
	pid := f.m.lookup(f.env.RunID).pid
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(500*time.Millisecond, cancel)
	res := f.callCtx(ctx, Open, map[string]any{"url": f.srv.url("/hang"), "wait_ms": 60000})
	if res.Code != tool.CodeCancelled {
		t.Errorf("cancelled open: %+v", res)
	}
	start := time.Now()
	if _, err := f.reg.EndRun(context.Background(), f.env); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("EndRun took %s", d)
	} else {
		t.Logf("EndRun after a cancelled call closed the browser in %s", d)
	}
	if err := syscall.Kill(pid, 0); err == nil {
		t.Errorf("Chromium (pid %d) still runs after EndRun", pid)
	}
	if left := chromiumProcs(); len(left) > 0 {
		t.Errorf("processes left: %v", left)
	}
	if n := f.m.Sessions(); n != 0 {
		t.Errorf("%d sessions after EndRun", n)
	}
	// A later call of the run starts afresh.
	if res := f.call(Snapshot, map[string]any{}); res.Code != CodeNoPage {
		t.Errorf("snapshot after EndRun: %+v", res)
	}
}

func TestParallelCallsShareOneStart(t *testing.T) {
	f := newFixture(t, Options{})
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() { f.ok(Open, map[string]any{"url": f.srv.url("/form")}) })
	}
	wg.Wait()
	if n := f.m.Sessions(); n != 1 {
		t.Errorf("%d sessions", n)
	}
	browsers := 0
	for _, pid := range chromiumProcs() {
		if cmd, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline")); !strings.Contains(string(cmd), "--type=") {
			browsers++
		}
	}
	if browsers != 1 {
		t.Errorf("%d browser processes", browsers)
	}
}

func TestRestartAfterCrash(t *testing.T) {
	f := newFixture(t, Options{})
	f.ok(Open, map[string]any{"url": f.srv.url("/form")})
	s := f.m.lookup(f.env.RunID)
	if err := syscall.Kill(s.pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.ctx.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("the session did not notice its browser died")
	}
	out := f.ok(Open, map[string]any{"url": f.srv.url("/links")})
	if !strings.Contains(out, "the browser had stopped") || !strings.Contains(out, `link "Form"`) {
		t.Errorf("after a crash:\n%s", out)
	}
}

func TestFileInputFromWorkspaceOnly(t *testing.T) {
	f := newFixture(t, Options{})
	if err := os.WriteFile(filepath.Join(f.env.Workspace, "cv.txt"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	snap := f.ok(Open, map[string]any{"url": f.srv.url("/form")})
	file := ref(t, snap, `button "Attachment"`)
	for _, bad := range []string{"/etc/passwd", "../outside.txt"} {
		if res := f.call(Act, map[string]any{"action": "fill", "ref": file, "value": bad}); res.Code != CodeOutside {
			t.Errorf("fill with %s: %+v", bad, res)
		}
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(f.env.Workspace, "link")); err != nil {
		t.Fatal(err)
	}
	if res := f.call(Act, map[string]any{"action": "fill", "ref": file, "value": "link"}); res.Code != CodeOutside {
		t.Errorf("fill with a symlink out: %+v", res)
	}
	f.ok(Act, map[string]any{"action": "fill", "ref": file, "value": "cv.txt"})
	out := f.ok(Act, map[string]any{"action": "click", "ref": ref(t, snap, `button "Send"`)})
	if !strings.Contains(out, "file=cv.txt") {
		t.Errorf("upload:\n%s", out)
	}
}

func TestOpenRefusesWhatIsNotAWebPage(t *testing.T) {
	f := newFixture(t, Options{})
	for _, u := range []string{"file:///etc/passwd", "javascript:alert(1)", "chrome://settings", "data:text/html,hi", "example.com", "localhost:8080/x", "127.0.0.1:3000", "http://"} {
		res := f.call(Open, map[string]any{"url": u})
		if res.Code != CodeInvalidURL {
			t.Errorf("%s: %+v", u, res)
		}
	}
	if n := f.m.Sessions(); n != 0 {
		t.Errorf("%d sessions", n)
	}
}

func TestNoChromium(t *testing.T) {
	m := NewManager(Options{Chromium: "/nonexistent/chromium", Logf: t.Logf})
	defer m.Close()
	var open tool.Tool
	for _, tl := range m.Tools() {
		if tl.Spec().Name == Open {
			open = tl
		}
	}
	res, err := open.Run(context.Background(), tool.Env{RunID: "r"}, []byte(`{"url":"about:blank"}`))
	if err != nil || res.Code != CodeUnavailable || !strings.Contains(res.Output, "install chromium") {
		t.Errorf("%+v, %v", res, err)
	}
}

// An approval of an action on the page shows what it acts on: the element
// as the model's snapshot showed it, and the page; an unknown ref says so.
func TestActPreviewNamesTheElementAndPage(t *testing.T) {
	f := newFixture(t, Options{})
	if _, ok := f.reg.Preview(context.Background(), Act, f.env, json.RawMessage(`{"action":"click","ref":"e1"}`)); ok {
		t.Error("a preview without a browser open")
	}
	snap := f.ok(Open, map[string]any{"url": f.srv.url("/form")})
	send := ref(t, snap, `button "Send"`)
	p, ok := f.reg.Preview(context.Background(), Act, f.env, json.RawMessage(`{"action":"click","ref":"`+send+`"}`))
	want := `click button "Send" (` + send + `) on ` + f.srv.url("/form") + ` ("`
	if !ok || !strings.HasPrefix(p.Note, want) || p.Diff != "" {
		t.Errorf("preview %+v, want a note starting %q", p, want)
	}
	name := ref(t, snap, `textbox "Name"`)
	p, _ = f.reg.Preview(context.Background(), Act, f.env, json.RawMessage(`{"action":"fill","ref":"[ref=`+name+`]","value":"Ada"}`))
	if !strings.HasPrefix(p.Note, `fill textbox "Name" (`+name+`) with "Ada" on `) {
		t.Errorf("fill preview %q", p.Note)
	}
	p, _ = f.reg.Preview(context.Background(), Act, f.env, json.RawMessage(`{"action":"click","ref":"e9999"}`))
	if !strings.Contains(p.Note, "e9999, an element no snapshot of this page showed") {
		t.Errorf("unknown ref preview %q", p.Note)
	}
}

// browser_open's precheck refuses what open would, with open's words, and
// nothing it would open.
func TestOpenPrecheck(t *testing.T) {
	t.Parallel()
	reg := tool.NewRegistry()
	for _, tl := range (&Manager{}).Tools() {
		if err := reg.Register(tl); err != nil {
			t.Fatal(err)
		}
	}
	env := tool.Env{RunID: "run_1", Domains: []string{"docs.example.com"}}
	for url, code := range map[string]string{
		"https://evil.example.net/": CodeRefused, "example.com": CodeInvalidURL, "javascript:alert(1)": CodeInvalidURL,
		"https://docs.example.com/a": "", "about:blank": "",
	} {
		res, refused := reg.Precheck(context.Background(), Open, env, json.RawMessage(`{"url":"`+url+`"}`))
		if refused != (code != "") || res.Code != code {
			t.Errorf("%s: refused %v %+v, want code %q", url, refused, res, code)
		}
	}
}
