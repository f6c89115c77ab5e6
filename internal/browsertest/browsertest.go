// Package browsertest starts a headless Chromium for the tests that drive
// oracle's pages (the HTML report, a case's timeline) in a real browser.
package browsertest

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Start starts a headless Chromium (or Chrome) found on PATH and returns
// its context, ended with the test; it skips the test, saying what for,
// when there is none. The two-minute deadline only keeps a stuck browser
// from hanging the test.
func Start(t *testing.T, what string) context.Context {
	t.Helper()
	if testing.Short() {
		t.Skipf("%s starts a browser, which is slow; go test -short leaves it out", what)
	}
	bin := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			bin = p
			break
		}
	}
	if bin == "" {
		t.Skipf("no Chromium or Chrome on PATH (Debian: apt-get install chromium); %s needs one", what)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-first-run", true),
		chromedp.UserDataDir(filepath.Join(t.TempDir(), "profile")),
	)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(acancel)
	bctx, bcancel := chromedp.NewContext(actx)
	t.Cleanup(bcancel)
	return bctx
}
