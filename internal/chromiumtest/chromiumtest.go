// Package chromiumtest starts the headless Chromium that the end-to-end
// tests drive with chromedp, and keeps their screenshots, so that every
// such test starts the browser the same way (TOOLCHAIN.md's flags, no
// sandbox as root) and leaves its pictures where a reviewer looks.
package chromiumtest

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Path is the system's Chromium, which `make test` installs.
const Path = "/usr/bin/chromium"

// Browser starts headless Chromium for one test, with a window of width ×
// height and a deadline of timeout for everything the test does in it. It
// is closed when the test ends; stop closes it earlier.
func Browser(tb testing.TB, width, height int, timeout time.Duration) (ctx context.Context, stop func()) {
	tb.Helper()
	if _, err := os.Stat(Path); err != nil {
		tb.Fatalf("this test needs Chromium at %s (make test installs it: apt-get install chromium)", Path)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(Path),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(width, height),
	)
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox) // Chromium refuses to run as root with its sandbox
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	ctx, cancelT := context.WithTimeout(ctx, timeout)
	stop = func() { cancelT(); cancelC(); cancelA() }
	tb.Cleanup(stop)
	return ctx, stop
}

// Screenshot saves the whole page as name.png in $STEWARD_ARTIFACTS (or the
// test's temporary folder) and logs where. A failure to take it is logged,
// not fatal: it is taken mostly when something else failed.
func Screenshot(tb testing.TB, ctx context.Context, name string) {
	tb.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(90))
	if err != nil {
		tb.Logf("screenshot %s: %v", name, err)
		return
	}
	dir := os.Getenv("STEWARD_ARTIFACTS")
	if dir == "" {
		dir = tb.TempDir()
	}
	p := filepath.Join(dir, name+".png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		tb.Logf("screenshot %s: %v", name, err)
		return
	}
	tb.Logf("screenshot: %s", p)
}
