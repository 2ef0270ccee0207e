package e2e

// End-to-end tests: build (or take) the real binary, start `steward serve` on
// a free loopback port with a temporary STEWARD_HOME, and drive the embedded
// UI in headless Chromium with chromedp, as a person would.

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"steward/internal/chromiumtest"
)

// moduleRoot is the folder of main.go, from this package's (go test runs
// a package's tests in its folder).
const moduleRoot = "../.."

// stewardBin returns the binary under test: $STEWARD_BIN (make test builds
// it once), else a fresh build of this module.
func stewardBin(t *testing.T) string {
	t.Helper()
	if b := os.Getenv("STEWARD_BIN"); b != "" {
		return b
	}
	out := filepath.Join(t.TempDir(), "steward")
	cmd := exec.Command("go", "build", "-tags", "desktop,production,webkit2_41,sqlite_fts5", "-o", out, ".")
	cmd.Dir = moduleRoot
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build steward: %v\n%s", err, b)
	}
	return out
}

// served is a running `steward serve`.
type served struct {
	url  string // with ?token=
	base string
	home string
	logs *lockedBuffer
	stop func() // SIGTERM, and wait for the exit; also run at cleanup
	pid  int
}

type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) add(s string) { l.mu.Lock(); l.b.WriteString(s + "\n"); l.mu.Unlock() }
func (l *lockedBuffer) addRaw(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

var urlRE = regexp.MustCompile(`(http://127\.0\.0\.1:\d+)/\?token=\S+`)

func startServe(t *testing.T, dir string, extraEnv ...string) *served {
	t.Helper()
	return startServeAt(t, dir, t.TempDir(), extraEnv...)
}

// startServeAt starts `steward serve` with its data in home, so that a test
// can stop it and start another on the same data.
func startServeAt(t *testing.T, dir, home string, extraEnv ...string) *served {
	t.Helper()
	return startServeBin(t, stewardBin(t), dir, home, extraEnv...)
}

// startServeBin is startServeAt with the binary bin.
func startServeBin(t *testing.T, bin, dir, home string, extraEnv ...string) *served {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0")
	cmd.Dir = dir
	// A clean environment: nothing of the developer's (OPENAI_API_KEY, a
	// local model server) may change what the default agent does.
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "STEWARD_HOME=" + home, "STEWARD_DISCOVER=0"}, extraEnv...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	logs := &lockedBuffer{}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop := sync.OnceFunc(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
			t.Errorf("steward serve did not stop within 10 s of SIGTERM")
		}
	})
	t.Cleanup(stop)
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			logs.add(sc.Text())
			if m := urlRE.FindString(sc.Text()); m != "" {
				select {
				case found <- m:
				default:
				}
			}
		}
	}()
	select {
	case u := <-found:
		return &served{url: u, base: urlRE.FindStringSubmatch(u)[1], home: home, logs: logs, stop: stop, pid: cmd.Process.Pid}
	case <-time.After(30 * time.Second):
		t.Fatalf("steward serve printed no URL within 30 s; output:\n%s", logs)
		return nil
	}
}

// browser starts headless Chromium for one test.
func browser(t *testing.T) context.Context {
	t.Helper()
	ctx, _ := chromiumtest.Browser(t, 1400, 900, 90*time.Second)
	return ctx
}

func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	chromiumtest.Screenshot(t, ctx, name)
}

// setField types into a React-controlled input the way a person's typing
// reaches React: through the native value setter and an input event.
func setField(label, value string) chromedp.Action[chromedp.Void] {
	js := fmt.Sprintf(`(() => {
		const el = document.querySelector('[aria-label=%q]');
		const proto = el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
		Object.getOwnPropertyDescriptor(proto, 'value').set.call(el, %q);
		el.dispatchEvent(new Event('input', {bubbles: true}));
		return true;
	})()`, label, value)
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := chromedp.Evaluate[bool](js)(ctx, t)
		return chromedp.Void{}, err
	}
}

// clickStartRun clicks the new-run form's Start run once it is enabled: it
// is disabled until the agents have loaded, and a click then is lost.
func clickStartRun() chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		return chromedp.Void{}, chromedp.Do(ctx,
			pollTrue(`[...document.querySelectorAll('button[type="submit"]')].some(b => b.textContent.trim() === "Start run" && !b.disabled)`),
			chromedp.Click(chromedp.Search(`//button[normalize-space()="Start run"][not(@disabled)]`)),
		)
	}
}

// pollTrue waits until a JavaScript expression is true.
func pollTrue(expr string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(30*time.Second))(ctx, t)
		return chromedp.Void{}, err
	}
}

func waitStatus(status string) chromedp.Action[chromedp.Void] {
	return pollTrue(fmt.Sprintf(`document.querySelector('[data-testid="run-status"]')?.textContent === %q`, status))
}

func startRunInUI(t *testing.T, ctx context.Context, s *served, ws, instructions string) {
	t.Helper()
	err := chromedp.Do(ctx,
		chromedp.Navigate(s.url),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="demo-label"]`)),
		chromedp.WaitVisible(chromedp.CSS(`textarea[aria-label="Instructions"]`)),
		chromedp.SendKeys(chromedp.CSS(`textarea[aria-label="Instructions"]`), instructions),
		setField("Workspace", ws),
		clickStartRun(),
		chromedp.WaitVisible(chromedp.CSS(`section[aria-label="Transcript"]`)),
	)
	if err != nil {
		screenshot(t, ctx, t.Name()+"-failed")
		t.Fatalf("start a run in the UI: %v\nserver output:\n%s", err, s.logs)
	}
}

func TestE2EDemoRunApproveWrite(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	s := startServe(t, t.TempDir())
	ctx := browser(t)
	startRunInUI(t, ctx, s, ws, "Say hello to the e2e test")

	waiting := `article[data-testid="tool-card"][data-tool="write_file"][data-status="waiting"]`
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(waiting))); err != nil {
		screenshot(t, ctx, "e2e-approve-failed")
		t.Fatalf("no write_file card waiting for approval: %v", err)
	}
	text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="llm-text"]`)))
	if err != nil || !strings.Contains(text, "demo script") {
		t.Errorf("first model text %q (%v): want the streamed demo text", text, err)
	}
	if _, err := os.Stat(filepath.Join(ws, "steward-demo.md")); !os.IsNotExist(err) {
		t.Fatalf("the file exists before approval (stat: %v)", err)
	}
	// The inbox and the run list follow the live stream too.
	if err := chromedp.Do(ctx,
		// On the run it waits in, the inbox is a line: the card is in the transcript.
		pollTrue(`document.querySelector('[data-testid="inbox-here"]')?.innerText.includes("1 waiting in this run")`),
		pollTrue(`document.querySelector('nav[aria-label="Runs"] button.run-item')?.innerText.includes("waiting")`),
	); err != nil {
		screenshot(t, ctx, "e2e-inbox-failed")
		t.Fatalf("inbox or run list did not show the waiting approval: %v", err)
	}
	screenshot(t, ctx, "e2e-waiting")
	err = chromedp.Do(ctx,
		clickStillXPath(`//article[@data-tool="write_file"]//button[normalize-space()="Approve"]`),
		waitStatus("completed"),
		chromedp.WaitVisible(chromedp.CSS(`article[data-tool="write_file"][data-status="succeeded"]`)),
	)
	if err == nil {
		err = chromedp.Do(ctx, pollTrue(`document.querySelector('nav[aria-label="Runs"] button.run-item')?.innerText.includes("completed")`))
	}
	screenshot(t, ctx, "e2e-completed")
	if err != nil {
		t.Fatalf("approve and complete: %v", err)
	}
	b, err := os.ReadFile(filepath.Join(ws, "steward-demo.md"))
	if err != nil {
		t.Fatalf("approved file not on disk: %v", err)
	}
	if !strings.Contains(string(b), "Say hello to the e2e test") {
		t.Errorf("file content %q lacks the instructions", b)
	}
}

func TestE2EDemoRunDenyWithReason(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	s := startServe(t, t.TempDir())
	ctx := browser(t)
	startRunInUI(t, ctx, s, ws, "Try to write, get denied")
	const reason = "not in this folder, please"
	err := chromedp.Do(ctx,
		chromedp.WaitVisible(chromedp.CSS(`article[data-tool="write_file"][data-status="waiting"]`)),
		clickStillXPath(`//article[@data-tool="write_file"]//button[normalize-space()="Deny"]`),
		chromedp.WaitVisible(chromedp.CSS(`article[data-tool="write_file"] textarea[aria-label="Reason"]`)),
		chromedp.SendKeys(chromedp.CSS(`article[data-tool="write_file"] textarea[aria-label="Reason"]`), reason),
		clickStillXPath(`//article[@data-tool="write_file"]//button[normalize-space()="Confirm deny"]`),
		waitStatus("completed"),
		chromedp.WaitVisible(chromedp.CSS(`article[data-tool="write_file"][data-status="denied"]`)),
	)
	screenshot(t, ctx, "e2e-denied")
	if err != nil {
		t.Fatalf("deny with a reason: %v", err)
	}
	// The model received the reason as the tool's error: the demo's last
	// turn quotes what the tool answered.
	transcript, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`section[aria-label="Transcript"]`)))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(transcript, reason) < 2 {
		t.Errorf("the reason should appear on the card and in the model's reply; transcript:\n%s", transcript)
	}
	if _, err := os.Stat(filepath.Join(ws, "steward-demo.md")); !os.IsNotExist(err) {
		t.Errorf("denied file was written (stat: %v)", err)
	}
}

func TestE2EWrongTokenAndCancel(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	s := startServe(t, t.TempDir())
	ctx := browser(t)
	// A wrong token gets no session; the app says how to sign in.
	err := chromedp.Do(ctx, chromedp.Navigate(s.base+"/"), pollTrue(`document.body.innerText.includes("Not signed in")`))
	if err != nil {
		screenshot(t, ctx, "e2e-signed-out-failed")
		t.Fatalf("no sign-in message without a token: %v", err)
	}
	startRunInUI(t, ctx, s, ws, "Cancel me while I wait")
	err = chromedp.Do(ctx,
		chromedp.WaitVisible(chromedp.CSS(`article[data-tool="write_file"][data-status="waiting"]`)),
		// The inbox opens the approval above the run's header as it comes,
		// which moves the button: it is pressed where it stays, enabled.
		pollTrue(`document.querySelector('div.run-controls > button.danger')?.disabled === false`),
		clickStill(`div.run-controls > button.danger`),
		waitStatus("cancelled"),
	)
	screenshot(t, ctx, "e2e-cancelled")
	if err != nil {
		t.Fatalf("cancel: %v", err)
	}
}
